import type { Hono } from 'hono';
import type { Logger } from 'happy-session';
import { answer, errorAnswer } from './answers.js';
import type { RelayEnv } from './env.js';
import { STORAGE_FULL, isStorageFull } from './storageFull.js';

/**
 * Error and not-found answers in the real server's shapes (docs/wire.md §0): a failure as
 * `{error:'Internal Server Error', message, statusCode:500}` without details (they go to the
 * logger), unknown routes as `{error:'Not found', path, method}`. A write the full disk refused is
 * the one exception: 507 with `code: 'storage_full'` (docs/relay.md, "A full disk").
 */
export function installErrorHandlers(app: Hono<RelayEnv>, logger: Logger): void {
  app.onError((error, c) => {
    if (isStorageFull(error)) {
      // Said, not hidden: the client's retry waits for room instead of treating the relay as broken.
      logger.error('relay cannot write: the disk is full', { method: c.req.method, url: c.req.url });
      return answer(c, STORAGE_FULL.status, {
        error: 'Insufficient Storage',
        code: STORAGE_FULL.code,
        message: STORAGE_FULL.message,
        statusCode: STORAGE_FULL.status,
      });
    }
    logger.error('relay request failed', { method: c.req.method, url: c.req.url, error: error.message });
    return errorAnswer(c, 500, 'Error', error.message);
  });
  app.notFound((c) => {
    // The path exactly as the request line had it, query included, like the real server.
    const path = c.env.incoming.url ?? c.req.path;
    return answer(c, 404, { error: 'Not found', path, method: c.req.method });
  });
}
