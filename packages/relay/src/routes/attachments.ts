import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import {
  MAX_ATTACHMENT_BYTES,
  DownloadRequestBodySchema as downloadBody,
  UploadRequestBodySchema as uploadBody,
} from 'happy-session/wire';
import { z } from 'zod';
import { isSafeAttachmentFile } from '../attachments.js';
import type { RelayContext } from '../context.js';
import type { Authenticate } from '../http/authenticate.js';
import { resolveBaseUrl } from '../http/baseUrl.js';

const UPLOAD_RATE_WINDOW_MS = 60_000;
const UPLOAD_RATE_MAX = 60;
const TOO_LARGE = { error: 'File too large (max 10MB)' };

const sessionParams = z.object({ sessionId: z.string() });
const fileParams = z.object({ sessionId: z.string(), attachmentFile: z.string() });

type SessionParams = z.infer<typeof sessionParams>;
type FileParams = z.infer<typeof fileParams>;

/** At most 60 upload requests per account and minute, like the real server (docs/wire.md §8.1). */
class UploadRateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();

  allow(userId: string, now = Date.now()): boolean {
    const window = this.windows.get(userId);
    if (!window || now - window.start >= UPLOAD_RATE_WINDOW_MS) {
      this.windows.set(userId, { start: now, count: 1 });
      return true;
    }
    if (window.count >= UPLOAD_RATE_MAX) return false;
    window.count += 1;
    return true;
  }
}

/**
 * Attachment routes in the real server's local-storage mode (docs/wire.md §8): request an upload
 * URL, PUT the encrypted blob to the relay itself, request a download URL, GET the blob. No
 * database row per attachment: the `ref` is the storage key.
 */
export function attachmentRoutes(app: FastifyInstance, ctx: RelayContext, authenticate: Authenticate): void {
  const limiter = new UploadRateLimiter();
  const baseUrl = (headers: Parameters<typeof resolveBaseUrl>[1]) =>
    resolveBaseUrl(ctx.publicUrl, headers, ctx.url);

  app.post<{ Params: SessionParams; Body: z.infer<typeof uploadBody> }>(
    '/v1/sessions/:sessionId/attachments/request-upload',
    { schema: { params: sessionParams, body: uploadBody }, preHandler: authenticate },
    async (request, reply) => {
      const userId = request.relayUserId;
      const { sessionId } = request.params;
      if (!limiter.allow(userId)) {
        return reply.code(429).send({ error: 'Too many upload requests. Try again in a minute.' });
      }
      if (!ctx.sessions.findOwned(sessionId, userId)) {
        return reply.code(404).send({ error: 'Session not found' });
      }
      if (request.body.size > MAX_ATTACHMENT_BYTES) return reply.code(413).send(TOO_LARGE);
      // The client's file name never reaches the storage path.
      const file = `${randomUUID()}.enc`;
      const ref = `sessions/${sessionId}/attachments/${file}`;
      const uploadUrl = `${baseUrl(request.headers)}/v1/sessions/${sessionId}/attachments/${file}`;
      return reply.send({ ref, uploadUrl, method: 'PUT' });
    },
  );

  app.put<{ Params: FileParams }>(
    '/v1/sessions/:sessionId/attachments/:attachmentFile',
    { schema: { params: fileParams }, preHandler: authenticate },
    async (request, reply) => {
      const { sessionId, attachmentFile } = request.params;
      if (!ctx.sessions.findOwned(sessionId, request.relayUserId)) {
        return reply.code(404).send({ error: 'Session not found' });
      }
      if (!isSafeAttachmentFile(attachmentFile)) {
        return reply.code(404).send({ error: 'Invalid attachment file' });
      }
      const body = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      if (body.length > MAX_ATTACHMENT_BYTES) return reply.code(413).send(TOO_LARGE);
      await ctx.attachments.put(sessionId, attachmentFile, body);
      return reply.send({ ok: true });
    },
  );

  app.post<{ Params: SessionParams; Body: z.infer<typeof downloadBody> }>(
    '/v1/sessions/:sessionId/attachments/request-download',
    { schema: { params: sessionParams, body: downloadBody }, preHandler: authenticate },
    async (request, reply) => {
      const { sessionId } = request.params;
      const { ref } = request.body;
      if (!ctx.sessions.findOwned(sessionId, request.relayUserId)) {
        return reply.code(404).send({ error: 'Session not found' });
      }
      // A ref must point into this very session, or one session's access would read another's.
      const prefix = `sessions/${sessionId}/attachments/`;
      if (!ref.startsWith(prefix)) {
        return reply.code(400).send({ error: 'Ref does not belong to this session' });
      }
      const file = ref.slice(prefix.length);
      if (!isSafeAttachmentFile(file)) return reply.code(400).send({ error: 'Invalid attachment ref' });
      return reply.send({
        downloadUrl: `${baseUrl(request.headers)}/v1/sessions/${sessionId}/attachments/${file}`,
      });
    },
  );

  app.get<{ Params: FileParams }>(
    '/v1/sessions/:sessionId/attachments/:attachmentFile',
    { schema: { params: fileParams }, preHandler: authenticate },
    async (request, reply) => {
      const { sessionId, attachmentFile } = request.params;
      if (!ctx.sessions.findOwned(sessionId, request.relayUserId)) {
        return reply.code(404).send({ error: 'Session not found' });
      }
      if (!isSafeAttachmentFile(attachmentFile)) {
        return reply.code(404).send({ error: 'Invalid attachment file' });
      }
      const data = await ctx.attachments.get(sessionId, attachmentFile);
      if (!data) return reply.code(404).send({ error: 'Attachment not found' });
      return reply.type('application/octet-stream').send(data);
    },
  );
}
