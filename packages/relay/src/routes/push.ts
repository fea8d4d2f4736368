import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { RelayContext } from '../context.js';
import type { Authenticate } from '../http/authenticate.js';

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
export function pushRoutes(app: FastifyInstance, ctx: RelayContext, authenticate: Authenticate): void {
  app.post<{ Params: z.infer<typeof sessionParams>; Body: z.infer<typeof pushBody> }>(
    '/v1/sessions/:sessionId/push-event',
    { schema: { params: sessionParams, body: pushBody }, preHandler: authenticate },
    async (request, reply) => {
      const userId = request.relayUserId;
      const { sessionId } = request.params;
      const { kind, title, body, data } = request.body;
      if (!ctx.sessions.findOwned(sessionId, userId)) {
        return reply.code(404).send({ error: 'Session not found' });
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
      return reply.send({ success: true, ...outcome });
    },
  );
}
