import type { FastifyInstance } from 'fastify';
import { CreateSessionBodySchema as createBody } from 'happy-session/wire';
import { z } from 'zod';
import type { RelayContext } from '../context.js';
import { activityEphemeral, deleteSessionBody, newSessionBody } from '../events.js';
import type { Authenticate } from '../http/authenticate.js';
import { messageJson, sessionJson, sessionJsonWithLastMessage } from '../wire.js';

const LIST_LIMIT = 150;
const ACTIVE_WINDOW_MS = 15 * 60_000;
const CURSOR_PREFIX = 'cursor_v1_';

const sessionParams = z.object({ sessionId: z.string() });
const activeQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(150) }).optional();
const pageQuery = z
  .object({
    cursor: z.string().optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    changedSince: z.coerce.number().int().positive().optional(),
  })
  .optional();

type SessionParams = z.infer<typeof sessionParams>;

/**
 * Session routes (docs/wire.md §4.1, §5.3): get-or-create by tag, the three list routes, the
 * legacy message read, archive and delete. Every route answers a session of another account
 * exactly like a missing one.
 */
export function sessionRoutes(app: FastifyInstance, ctx: RelayContext, authenticate: Authenticate): void {
  app.get('/v1/sessions', { preHandler: authenticate }, async (request, reply) => {
    const sessions = ctx.sessions.listRecent(request.relayUserId, LIST_LIMIT);
    return reply.send({ sessions: sessions.map(sessionJsonWithLastMessage) });
  });

  app.get<{ Querystring: z.infer<typeof activeQuery> }>(
    '/v2/sessions/active',
    { schema: { querystring: activeQuery }, preHandler: authenticate },
    async (request, reply) => {
      const limit = request.query?.limit ?? 150;
      const sessions = ctx.sessions.listActive(request.relayUserId, Date.now() - ACTIVE_WINDOW_MS, limit);
      return reply.send({ sessions: sessions.map(sessionJson) });
    },
  );

  app.get<{ Querystring: z.infer<typeof pageQuery> }>(
    '/v2/sessions',
    { schema: { querystring: pageQuery }, preHandler: authenticate },
    async (request, reply) => {
      const { cursor, limit = 50, changedSince } = request.query ?? {};
      let beforeId: string | undefined;
      if (cursor !== undefined) {
        if (!cursor.startsWith(CURSOR_PREFIX))
          return reply.code(400).send({ error: 'Invalid cursor format' });
        beforeId = cursor.substring(CURSOR_PREFIX.length);
      }
      const rows = ctx.sessions.listPage(request.relayUserId, {
        ...(beforeId !== undefined ? { beforeId } : {}),
        ...(changedSince !== undefined ? { changedSince } : {}),
        limit: limit + 1,
      });
      const hasNext = rows.length > limit;
      const page = hasNext ? rows.slice(0, limit) : rows;
      const last = page[page.length - 1];
      const nextCursor = hasNext && last ? `${CURSOR_PREFIX}${last.id}` : null;
      return reply.send({ sessions: page.map(sessionJson), nextCursor, hasNext });
    },
  );

  app.post<{ Body: z.infer<typeof createBody> }>(
    '/v1/sessions',
    { schema: { body: createBody }, preHandler: authenticate },
    async (request, reply) => {
      const userId = request.relayUserId;
      const { tag, metadata, dataEncryptionKey } = request.body;
      const existing = ctx.sessions.findByTag(userId, tag);
      if (existing) {
        // The session is starting back up: accept its heartbeats again (§4.1).
        ctx.presence.resume(existing.id);
        return reply.send({ session: sessionJsonWithLastMessage(existing) });
      }
      const session = ctx.sessions.create({
        accountId: userId,
        tag,
        metadata,
        dataEncryptionKey: dataEncryptionKey ? Buffer.from(dataEncryptionKey, 'base64') : null,
      });
      ctx.events.emitUpdate(userId, newSessionBody(session), { type: 'user-scoped-only' });
      return reply.send({ session: sessionJsonWithLastMessage(session) });
    },
  );

  app.get<{ Params: SessionParams }>(
    '/v1/sessions/:sessionId/messages',
    { schema: { params: sessionParams }, preHandler: authenticate },
    async (request, reply) => {
      const { sessionId } = request.params;
      if (!ctx.sessions.findOwned(sessionId, request.relayUserId)) {
        return reply.code(404).send({ error: 'Session not found' });
      }
      const messages = ctx.messages.listNewest(sessionId, LIST_LIMIT);
      return reply.send({ messages: messages.map(messageJson) });
    },
  );

  app.post<{ Params: SessionParams }>(
    '/v1/sessions/:sessionId/archive',
    { schema: { params: sessionParams }, preHandler: authenticate },
    async (request, reply) => {
      const userId = request.relayUserId;
      const { sessionId } = request.params;
      const now = Date.now();
      if (!ctx.sessions.archive(sessionId, userId, now)) {
        return reply.code(404).send({ error: 'Session not found' });
      }
      ctx.presence.markStopped(sessionId);
      ctx.events.emitEphemeral(userId, activityEphemeral(sessionId, false, now, false), {
        type: 'user-scoped-only',
      });
      return reply.send({ success: true });
    },
  );

  app.delete<{ Params: SessionParams }>(
    '/v1/sessions/:sessionId',
    { schema: { params: sessionParams }, preHandler: authenticate },
    async (request, reply) => {
      const userId = request.relayUserId;
      const { sessionId } = request.params;
      if (!ctx.sessions.delete(sessionId, userId)) {
        return reply.code(404).send({ error: 'Session not found or not owned by user' });
      }
      ctx.presence.markStopped(sessionId);
      await ctx.attachments.deleteSession(sessionId);
      ctx.events.emitUpdate(userId, deleteSessionBody(sessionId), { type: 'user-scoped-only' });
      return reply.send({ success: true });
    },
  );
}
