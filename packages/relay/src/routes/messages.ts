import type { FastifyInstance } from 'fastify';
import { AppendMessagesBodySchema as writeBody, MAX_READ_LIMIT } from 'happy-session/wire';
import { z } from 'zod';
import type { RelayContext } from '../context.js';
import { newMessageBody } from '../events.js';
import type { Authenticate } from '../http/authenticate.js';
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

type SessionParams = z.infer<typeof sessionParams>;

/**
 * The v3 message API (docs/wire.md §5.2): batched idempotent writes with consecutive seqs, and
 * seq-cursor reads in both directions.
 */
export function messageRoutes(app: FastifyInstance, ctx: RelayContext, authenticate: Authenticate): void {
  app.get<{ Params: SessionParams; Querystring: z.infer<typeof readQuery> }>(
    '/v3/sessions/:sessionId/messages',
    { schema: { params: sessionParams, querystring: readQuery }, preHandler: authenticate },
    async (request, reply) => {
      const { sessionId } = request.params;
      if (!ctx.sessions.findOwned(sessionId, request.relayUserId)) {
        return reply.code(404).send({ error: 'Session not found' });
      }
      const { after_seq, before_seq, limit } = request.query;
      // One row beyond the page tells whether there is more.
      const rows =
        before_seq !== undefined
          ? ctx.messages.listBefore(sessionId, before_seq, limit + 1)
          : ctx.messages.listAfter(sessionId, after_seq ?? 0, limit + 1);
      const hasMore = rows.length > limit;
      const page = hasMore ? rows.slice(0, limit) : rows;
      return reply.send({ messages: page.map(messageJson), hasMore });
    },
  );

  app.post<{ Params: SessionParams; Body: z.infer<typeof writeBody> }>(
    '/v3/sessions/:sessionId/messages',
    { schema: { params: sessionParams, body: writeBody }, preHandler: authenticate },
    async (request, reply) => {
      const userId = request.relayUserId;
      const { sessionId } = request.params;
      if (!ctx.sessions.findOwned(sessionId, userId)) {
        return reply.code(404).send({ error: 'Session not found' });
      }
      const { rows, created } = ctx.messages.appendBatch(sessionId, request.body.messages);
      // The v3 path tells everyone, the writer's own socket included (§2.2).
      for (const message of created) {
        ctx.events.emitUpdate(userId, newMessageBody(sessionId, message), {
          type: 'all-interested-in-session',
          sessionId,
        });
      }
      return reply.send({ messages: rows.map(messageAckJson) });
    },
  );
}
