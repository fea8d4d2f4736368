import type { Hono } from 'hono';
import { CreateSessionBodySchema as createBody } from 'happy-session/internal';
import { z } from 'zod';
import type { RelayContext } from '../context.js';
import { activityEphemeral, deleteSessionBody, newSessionBody } from '../events.js';
import { answer } from '../http/answers.js';
import type { RelayEnv, RelayMiddleware } from '../http/env.js';
import { readInput } from '../http/input.js';
import { messageJson, sessionJson, sessionJsonWithLastMessage } from '../wire.js';

const LIST_LIMIT = 150;
const ACTIVE_WINDOW_MS = 15 * 60_000;
const CURSOR_PREFIX = 'cursor_v1_';

const sessionParams = z.object({ sessionId: z.string() });
const activeQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(150) });
const pageQuery = z.object({
  cursor: z.string().optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  changedSince: z.coerce.number().int().positive().optional(),
});

/**
 * Session routes (docs/wire.md §4.1, §5.3): get-or-create by tag, the three list routes, the
 * legacy message read, archive and delete. Every route answers a session of another account
 * exactly like a missing one.
 */
export function sessionRoutes(app: Hono<RelayEnv>, ctx: RelayContext, authenticate: RelayMiddleware): void {
  app.get('/v1/sessions', authenticate, async (c) => {
    const sessions = ctx.sessions.listRecent(c.get('userId'), LIST_LIMIT);
    return c.json({ sessions: sessions.map(sessionJsonWithLastMessage) });
  });

  app.get('/v2/sessions/active', authenticate, async (c) => {
    const input = await readInput(c, { query: activeQuery });
    if (input instanceof Response) return input;
    const since = Date.now() - ACTIVE_WINDOW_MS;
    const sessions = ctx.sessions.listActive(c.get('userId'), since, input.query.limit);
    return c.json({ sessions: sessions.map(sessionJson) });
  });

  app.get('/v2/sessions', authenticate, async (c) => {
    const input = await readInput(c, { query: pageQuery });
    if (input instanceof Response) return input;
    const { cursor, limit, changedSince } = input.query;
    let beforeId: string | undefined;
    if (cursor !== undefined) {
      if (!cursor.startsWith(CURSOR_PREFIX)) return answer(c, 400, { error: 'Invalid cursor format' });
      beforeId = cursor.substring(CURSOR_PREFIX.length);
    }
    const rows = ctx.sessions.listPage(c.get('userId'), {
      ...(beforeId !== undefined ? { beforeId } : {}),
      ...(changedSince !== undefined ? { changedSince } : {}),
      limit: limit + 1,
    });
    const hasNext = rows.length > limit;
    const page = hasNext ? rows.slice(0, limit) : rows;
    const last = page[page.length - 1];
    const nextCursor = hasNext && last ? `${CURSOR_PREFIX}${last.id}` : null;
    return c.json({ sessions: page.map(sessionJson), nextCursor, hasNext });
  });

  app.post('/v1/sessions', authenticate, async (c) => {
    const input = await readInput(c, { body: createBody }, ctx.limits.sessionJsonBytes);
    if (input instanceof Response) return input;
    const userId = c.get('userId');
    const { tag, metadata, dataEncryptionKey } = input.body;
    const existing = ctx.sessions.findByTag(userId, tag);
    if (existing) {
      // The session is starting back up: accept its heartbeats again (§4.1).
      ctx.presence.resume(existing.id);
      return c.json({ session: sessionJsonWithLastMessage(existing) });
    }
    const session = ctx.sessions.create({
      accountId: userId,
      tag,
      metadata,
      dataEncryptionKey: dataEncryptionKey ? Buffer.from(dataEncryptionKey, 'base64') : null,
    });
    ctx.events.emitUpdate(userId, newSessionBody(session), { type: 'user-scoped-only' });
    return c.json({ session: sessionJsonWithLastMessage(session) });
  });

  app.get('/v1/sessions/:sessionId/messages', authenticate, async (c) => {
    const input = await readInput(c, { params: sessionParams });
    if (input instanceof Response) return input;
    const { sessionId } = input.params;
    if (!ctx.sessions.findOwned(sessionId, c.get('userId'))) {
      return answer(c, 404, { error: 'Session not found' });
    }
    const messages = ctx.messages.listNewest(sessionId, LIST_LIMIT);
    return c.json({ messages: messages.map(messageJson) });
  });

  app.post('/v1/sessions/:sessionId/archive', authenticate, async (c) => {
    const input = await readInput(c, { params: sessionParams });
    if (input instanceof Response) return input;
    const userId = c.get('userId');
    const { sessionId } = input.params;
    const now = Date.now();
    if (!ctx.sessions.archive(sessionId, userId, now)) {
      return answer(c, 404, { error: 'Session not found' });
    }
    ctx.presence.markStopped(sessionId);
    ctx.events.emitEphemeral(userId, activityEphemeral(sessionId, false, now, false), {
      type: 'user-scoped-only',
    });
    return c.json({ success: true });
  });

  app.delete('/v1/sessions/:sessionId', authenticate, async (c) => {
    const input = await readInput(c, { params: sessionParams });
    if (input instanceof Response) return input;
    const userId = c.get('userId');
    const { sessionId } = input.params;
    if (!ctx.sessions.delete(sessionId, userId)) {
      return answer(c, 404, { error: 'Session not found or not owned by user' });
    }
    ctx.presence.markStopped(sessionId);
    ctx.uploads.deleteSession(sessionId);
    await ctx.attachments.deleteSession(sessionId);
    ctx.events.emitUpdate(userId, deleteSessionBody(sessionId), { type: 'user-scoped-only' });
    return c.json({ success: true });
  });
}
