import type { Hono } from 'hono';
import { AppendMessagesBodySchema as writeBody, MAX_READ_LIMIT } from 'happy-session/internal';
import { z } from 'zod';
import type { RelayContext } from '../context.js';
import { newMessageBody } from '../events.js';
import { answer } from '../http/answers.js';
import type { RelayEnv, RelayMiddleware } from '../http/env.js';
import { readInput } from '../http/input.js';
import { messageAckJson, messageJson } from '../wire.js';

const sessionParams = z.object({ sessionId: z.string() });
const readQuery = z
  .object({
    after_seq: z.coerce.number().int().min(0).optional(),
    before_seq: z.coerce.number().int().min(1).optional(),
    limit: z.coerce.number().int().min(1).max(MAX_READ_LIMIT).default(100),
  })
  .refine((query) => !(query.after_seq !== undefined && query.before_seq !== undefined), {
    message: 'after_seq and before_seq are mutually exclusive',
  });

/** The answer to an account writing faster than its message rate (docs/relay.md, "Limits"). */
export const TOO_MANY_MESSAGES = { error: 'Too many messages. Slow down and try again.' };

/**
 * The v3 message API (docs/wire.md §5.2): batched idempotent writes with consecutive seqs, and
 * seq-cursor reads in both directions. A write body is read only after the token is checked, and
 * at most `messageBatchBytes` of it; each account writes at most `messagesPerMinute` records.
 */
export function messageRoutes(app: Hono<RelayEnv>, ctx: RelayContext, authenticate: RelayMiddleware): void {
  app.get('/v3/sessions/:sessionId/messages', authenticate, async (c) => {
    const input = await readInput(c, { params: sessionParams, query: readQuery });
    if (input instanceof Response) return input;
    const { sessionId } = input.params;
    if (!ctx.sessions.findOwned(sessionId, c.get('userId'))) {
      return answer(c, 404, { error: 'Session not found' });
    }
    const { after_seq, before_seq, limit } = input.query;
    // One row beyond the page tells whether there is more.
    const rows =
      before_seq !== undefined
        ? ctx.messages.listBefore(sessionId, before_seq, limit + 1)
        : ctx.messages.listAfter(sessionId, after_seq ?? 0, limit + 1);
    const hasMore = rows.length > limit;
    const page = hasMore ? rows.slice(0, limit) : rows;
    return c.json({ messages: page.map(messageJson), hasMore });
  });

  app.post('/v3/sessions/:sessionId/messages', authenticate, async (c) => {
    const input = await readInput(
      c,
      { params: sessionParams, body: writeBody },
      ctx.limits.messageBatchBytes,
    );
    if (input instanceof Response) return input;
    const userId = c.get('userId');
    const { sessionId } = input.params;
    if (!ctx.sessions.findOwned(sessionId, userId)) {
      return answer(c, 404, { error: 'Session not found' });
    }
    if (!ctx.messageRate.take(userId, input.body.messages.length)) return answer(c, 429, TOO_MANY_MESSAGES);
    const { rows, created } = ctx.messages.appendBatch(sessionId, input.body.messages);
    // The v3 path tells everyone, the writer's own socket included (§2.2).
    for (const message of created) {
      ctx.events.emitUpdate(userId, newMessageBody(sessionId, message), {
        type: 'all-interested-in-session',
        sessionId,
      });
    }
    return c.json({ messages: rows.map(messageAckJson) });
  });
}
