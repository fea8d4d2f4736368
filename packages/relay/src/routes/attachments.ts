import { randomUUID } from 'node:crypto';
import type { Hono } from 'hono';
import {
  DownloadRequestBodySchema as downloadBody,
  UploadRequestBodySchema as uploadBody,
} from 'happy-session/internal';
import { z } from 'zod';
import { checkAttachmentFile } from '../attachments.js';
import type { RelayContext } from '../context.js';
import { answer } from '../http/answers.js';
import { resolveBaseUrl } from '../http/baseUrl.js';
import type { RelayContextHttp, RelayEnv, RelayMiddleware } from '../http/env.js';
import { readInput } from '../http/input.js';

const UPLOAD_RATE_WINDOW_MS = 60_000;
const UPLOAD_RATE_MAX = 60;
/** How long an issued upload name takes a PUT, like the real server's presigned URLs (docs/wire.md §8.1). */
const UPLOAD_TTL_MS = 15 * 60_000;
const TOO_LARGE = { error: 'File too large (max 10MB)' };

const sessionParams = z.object({ sessionId: z.string() });
const fileParams = z.object({ sessionId: z.string(), attachmentFile: z.string() });

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

function quotaExceeded(c: RelayContextHttp, quotaBytes: number): Response {
  const mib = 1024 * 1024;
  const size = quotaBytes >= mib ? `${Math.round(quotaBytes / mib)} MB` : `${quotaBytes} bytes`;
  return answer(c, 413, {
    error: `Attachment storage quota exceeded (${size} per account); delete sessions to free space`,
  });
}

/**
 * What a stored blob is answered with (docs/relay.md, "Attachments"): opaque bytes that a browser
 * must never sniff into a page or script (`nosniff`), nor run as one if opened directly (a CSP that
 * allows nothing and sandboxes the document), nor show inline.
 */
const BLOB_HEADERS = {
  'Content-Type': 'application/octet-stream',
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; sandbox; frame-ancestors 'none'",
  'Content-Disposition': 'attachment',
} as const;

/**
 * Attachment routes in the real server's local-storage mode (docs/wire.md §8): request an upload
 * URL, PUT the encrypted blob to the relay itself, request a download URL, GET the blob. The `ref`
 * is the storage key. Unlike the real server, a PUT is taken only for a name `request-upload`
 * issued to that account and session, once, within 15 minutes, and within the account's quota; the
 * blob streams to disk and the limits are checked before and while it arrives (docs/relay.md,
 * "Attachments").
 */
export function attachmentRoutes(
  app: Hono<RelayEnv>,
  ctx: RelayContext,
  authenticate: RelayMiddleware,
): void {
  const limiter = new UploadRateLimiter();
  // Bytes of PUTs under way per account, so concurrent uploads cannot overrun the quota together.
  const reserved = new Map<string, number>();
  const baseUrl = (c: RelayContextHttp) => resolveBaseUrl(ctx.publicUrl, c.env.incoming.headers, ctx.url);
  const { attachmentBytes, attachmentQuotaBytes, smallJsonBytes } = ctx.limits;
  const usedBytes = (userId: string) => ctx.uploads.usedBytes(userId) + (reserved.get(userId) ?? 0);

  app.post('/v1/sessions/:sessionId/attachments/request-upload', authenticate, async (c) => {
    const input = await readInput(c, { params: sessionParams, body: uploadBody }, smallJsonBytes);
    if (input instanceof Response) return input;
    const userId = c.get('userId');
    const { sessionId } = input.params;
    if (!limiter.allow(userId)) {
      return answer(c, 429, { error: 'Too many upload requests. Try again in a minute.' });
    }
    if (!ctx.sessions.findOwned(sessionId, userId)) return answer(c, 404, { error: 'Session not found' });
    if (input.body.size > attachmentBytes) return answer(c, 413, TOO_LARGE);
    if (usedBytes(userId) + input.body.size > attachmentQuotaBytes)
      return quotaExceeded(c, attachmentQuotaBytes);
    // The client's file name never reaches the storage path.
    const file = `${randomUUID()}.enc`;
    ctx.uploads.issue(userId, sessionId, file, Date.now() + UPLOAD_TTL_MS);
    return c.json({
      ref: `sessions/${sessionId}/attachments/${file}`,
      uploadUrl: `${baseUrl(c)}/v1/sessions/${sessionId}/attachments/${file}`,
      method: 'PUT',
    });
  });

  app.put('/v1/sessions/:sessionId/attachments/:attachmentFile', authenticate, async (c) => {
    const input = await readInput(c, { params: fileParams });
    if (input instanceof Response) return input;
    const userId = c.get('userId');
    const { sessionId, attachmentFile } = input.params;
    const unsafe = checkAttachmentFile(attachmentFile);
    if (unsafe === 'control_character') return answer(c, 400, { error: 'Invalid attachment file name' });
    if (!ctx.sessions.findOwned(sessionId, userId)) return answer(c, 404, { error: 'Session not found' });
    if (unsafe) return answer(c, 404, { error: 'Invalid attachment file' });
    const declared = Number(c.req.header('content-length') ?? Number.NaN);
    if (declared > attachmentBytes) return answer(c, 413, TOO_LARGE);
    const room = attachmentQuotaBytes - usedBytes(userId);
    if (declared > room || room <= 0) return quotaExceeded(c, attachmentQuotaBytes);
    const refused = ctx.uploads.claim(userId, sessionId, attachmentFile);
    if (refused === 'taken') return answer(c, 409, { error: 'Attachment already uploaded' });
    if (refused === 'expired') return answer(c, 403, { error: 'Upload URL expired; request a new one' });
    if (refused) return answer(c, 403, { error: 'No upload was requested for this attachment' });

    const maxBytes = Math.min(attachmentBytes, room);
    const reservation = Number.isFinite(declared) ? declared : maxBytes;
    reserved.set(userId, (reserved.get(userId) ?? 0) + reservation);
    let stored = false;
    try {
      // The socket's own iterator, left open on a refusal so the 413 can still be answered.
      const source = c.env.incoming.iterator({ destroyOnReturn: false });
      const result = await ctx.attachments.put(sessionId, attachmentFile, source, maxBytes);
      if (!result.ok) {
        if (result.error === 'exists') return answer(c, 409, { error: 'Attachment already uploaded' });
        return maxBytes < attachmentBytes
          ? quotaExceeded(c, attachmentQuotaBytes)
          : answer(c, 413, TOO_LARGE);
      }
      ctx.uploads.stored(sessionId, attachmentFile, result.value);
      stored = true;
      return c.json({ ok: true });
    } finally {
      if (!stored) ctx.uploads.release(sessionId, attachmentFile);
      const left = (reserved.get(userId) ?? 0) - reservation;
      if (left > 0) reserved.set(userId, left);
      else reserved.delete(userId);
    }
  });

  app.post('/v1/sessions/:sessionId/attachments/request-download', authenticate, async (c) => {
    const input = await readInput(c, { params: sessionParams, body: downloadBody }, smallJsonBytes);
    if (input instanceof Response) return input;
    const { sessionId } = input.params;
    if (!ctx.sessions.findOwned(sessionId, c.get('userId'))) {
      return answer(c, 404, { error: 'Session not found' });
    }
    // A ref must point into this very session, or one session's access would read another's.
    const prefix = `sessions/${sessionId}/attachments/`;
    if (!input.body.ref.startsWith(prefix)) {
      return answer(c, 400, { error: 'Ref does not belong to this session' });
    }
    const file = input.body.ref.slice(prefix.length);
    if (checkAttachmentFile(file)) return answer(c, 400, { error: 'Invalid attachment ref' });
    return c.json({ downloadUrl: `${baseUrl(c)}/v1/sessions/${sessionId}/attachments/${file}` });
  });

  app.get('/v1/sessions/:sessionId/attachments/:attachmentFile', authenticate, async (c) => {
    const input = await readInput(c, { params: fileParams });
    if (input instanceof Response) return input;
    const { sessionId, attachmentFile } = input.params;
    const unsafe = checkAttachmentFile(attachmentFile);
    if (unsafe === 'control_character') return answer(c, 400, { error: 'Invalid attachment file name' });
    if (!ctx.sessions.findOwned(sessionId, c.get('userId'))) {
      return answer(c, 404, { error: 'Session not found' });
    }
    if (unsafe) return answer(c, 404, { error: 'Invalid attachment file' });
    const data = await ctx.attachments.get(sessionId, attachmentFile);
    if (!data) return answer(c, 404, { error: 'Attachment not found' });
    return c.body(new Uint8Array(data), 200, BLOB_HEADERS);
  });
}
