import type { Context, Hono } from 'hono';
import type { Logger } from 'happy-session';
import { z } from 'zod';
import { answer } from '../http/answers.js';
import type { RelayEnv, RelayMiddleware } from '../http/env.js';
import { readInput } from '../http/input.js';
import { loadViewerAssets } from './assets.js';
import { FAVICON_SVG } from './favicon.js';
import type { ViewerAssets } from './assets.js';
import { NEW_TICKET_PATH, TICKET_PATH } from './fragmentFormat.js';
import type { ViewerTickets } from './tickets.js';

/**
 * The page may talk to its own origin only (HTTP and the socket), show images and media it decrypted
 * itself (`blob:`, `data:`), and load nothing else: no third-party script, no tracking pixel from
 * agent-written markdown, no framing.
 */
const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const NOT_BUILT =
  'The web viewer is not built. Build the relay package (`npm run build -w happy-session-relay`) and start the relay again.';

const ticketBody = z.object({ id: z.string().min(1).max(64) });
/** A secretbox of a 32-byte secret is 72 bytes: 96 characters of base64. */
const newTicketBody = z.object({ sealed: z.base64().max(128) });

/**
 * Serves the web viewer: `GET /` is the page, `GET /viewer/app.js` and `/viewer/app.css` its
 * bundle, `POST /viewer/ticket` hands a one-time link's sealed secret to the page once, and
 * `POST /viewer/tickets` (authenticated) keeps a sealed secret for a new link (`happy-session
 * link`, while the relay runs). The
 * page keeps the account secret in the browser, so the relay still only ever sees ciphertext.
 * Assets are loaded once, on the first request.
 *
 * @see docs/viewer.md
 */
export function viewerRoutes(
  app: Hono<RelayEnv>,
  tickets: ViewerTickets,
  authenticate: RelayMiddleware,
  logger: Logger,
): void {
  let loading: Promise<ViewerAssets | undefined> | undefined;
  const assets = async (): Promise<ViewerAssets | undefined> => {
    loading ??= loadViewerAssets().catch((error: unknown) => {
      loading = undefined; // let the next request try again (a syntax error fixed in dev, say)
      logger.error('viewer build failed', { error: String(error) });
      throw error;
    });
    return loading;
  };

  const send = async (c: Context<RelayEnv>, name: string): Promise<Response> => {
    let bundle: ViewerAssets | undefined;
    try {
      bundle = await assets();
    } catch (error) {
      return c.text(`The web viewer failed to build: ${String(error)}`, 500);
    }
    if (!bundle) return c.text(NOT_BUILT, 503);
    const asset = bundle.get(name);
    if (!asset) return c.json({ error: 'Not found' }, 404);
    return c.body(new Uint8Array(asset.body), 200, {
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'Referrer-Policy': 'no-referrer',
      'X-Content-Type-Options': 'nosniff',
      'Cache-Control': 'no-cache',
      'Content-Type': asset.contentType,
    });
  };

  app.get('/', (c) => send(c, 'index.html'));
  for (const path of ['/favicon.svg', '/favicon.ico']) {
    app.get(path, (c) =>
      c.body(FAVICON_SVG, 200, {
        'Content-Type': 'image/svg+xml',
        'Cache-Control': 'max-age=86400',
        'X-Content-Type-Options': 'nosniff',
      }),
    );
  }
  app.post(TICKET_PATH, async (c) => {
    const input = await readInput(c, { body: ticketBody }, 1024);
    if (input instanceof Response) return input;
    const sealed = tickets.redeem(input.body.id);
    if (sealed === undefined) return answer(c, 404, { error: 'Link already used or unknown' });
    return c.json({ sealed }, 200, { 'Cache-Control': 'no-store' });
  });
  app.post(NEW_TICKET_PATH, authenticate, async (c) => {
    const input = await readInput(c, { body: newTicketBody }, 1024);
    if (input instanceof Response) return input;
    return c.json({ id: tickets.put(input.body.sealed) }, 200, { 'Cache-Control': 'no-store' });
  });
  app.get('/viewer/:file', (c) => {
    const file = c.req.param('file');
    if (file === 'index.html') return c.json({ error: 'Not found' }, 404);
    return send(c, file);
  });
}
