import type { Hono } from 'hono';
import { z } from 'zod';
import type { RelayContext } from '../context.js';
import { answer } from '../http/answers.js';
import type { RelayEnv, RelayMiddleware } from '../http/env.js';
import { readInput } from '../http/input.js';

const sessionParams = z.object({ sessionId: z.string() });
const pushBody = z.object({
  kind: z.enum(['done', 'permission', 'question']),
  title: z.string().min(1).max(200),
  body: z.string().min(1).max(500),
  data: z.record(z.string(), z.unknown()).optional(),
});

/**
 * `POST /v1/sessions/:id/push-event` (docs/wire.md §9 item 4). The relay has no push service and
 * no device tokens, so it records the event and answers `no_tokens`, or `suppressed` when a UI of
 * the account reported `appState: 'active'`, as the real server would. The `session-event`
 * ephemeral goes out either way.
 */
export function pushRoutes(app: Hono<RelayEnv>, ctx: RelayContext, authenticate: RelayMiddleware): void {
  app.post('/v1/sessions/:sessionId/push-event', authenticate, async (c) => {
    const input = await readInput(c, { params: sessionParams, body: pushBody }, ctx.limits.smallJsonBytes);
    if (input instanceof Response) return input;
    const userId = c.get('userId');
    const { sessionId } = input.params;
    const { kind, title, body, data } = input.body;
    if (!ctx.sessions.findOwned(sessionId, userId)) {
      return answer(c, 404, { error: 'Session not found' });
    }
    ctx.events.emitEphemeral(
      userId,
      { type: 'session-event', sessionId, kind, title, body, timestamp: Date.now() },
      { type: 'all-interested-in-session', sessionId },
    );
    const outcome = (await ctx.events.hasActiveUiClient(userId))
      ? ({ result: 'suppressed', reason: 'active-ui-client' } as const)
      : ({ result: 'no_tokens' } as const);
    ctx.activity.recordPush({
      accountId: userId,
      sessionId,
      kind,
      title,
      body,
      data: { ...(data ?? {}), kind },
      result: outcome.result,
    });
    return c.json({ success: true, ...outcome });
  });
}
