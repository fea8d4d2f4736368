import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Logger } from 'happy-session';
import { loadViewerAssets } from './assets.js';
import type { ViewerAssets } from './assets.js';

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

/**
 * Serves the web viewer: `GET /` is the page, `GET /viewer/app.js` and `/viewer/app.css` its
 * bundle. The page reads the account secret from the URL fragment, which browsers never send, so
 * the relay still only ever sees ciphertext. Assets are loaded once, on the first request.
 *
 * @see docs/viewer.md
 */
export function viewerRoutes(app: FastifyInstance, logger: Logger): void {
  let loading: Promise<ViewerAssets | undefined> | undefined;
  const assets = async (): Promise<ViewerAssets | undefined> => {
    loading ??= loadViewerAssets().catch((error: unknown) => {
      loading = undefined; // let the next request try again (a syntax error fixed in dev, say)
      logger.error('viewer build failed', { error: String(error) });
      throw error;
    });
    return loading;
  };

  const send = async (reply: FastifyReply, name: string): Promise<FastifyReply> => {
    let bundle: ViewerAssets | undefined;
    try {
      bundle = await assets();
    } catch (error) {
      return reply
        .code(500)
        .type('text/plain; charset=utf-8')
        .send(`The web viewer failed to build: ${String(error)}`);
    }
    if (!bundle) return reply.code(503).type('text/plain; charset=utf-8').send(NOT_BUILT);
    const asset = bundle.get(name);
    if (!asset) return reply.code(404).send({ error: 'Not found' });
    return reply
      .header('Content-Security-Policy', CONTENT_SECURITY_POLICY)
      .header('Referrer-Policy', 'no-referrer')
      .header('X-Content-Type-Options', 'nosniff')
      .header('Cache-Control', 'no-cache')
      .type(asset.contentType)
      .send(Buffer.from(asset.body));
  };

  app.get('/', async (_request, reply) => send(reply, 'index.html'));
  app.get<{ Params: { file: string } }>('/viewer/:file', async (request, reply) => {
    const { file } = request.params;
    if (file === 'index.html') return reply.code(404).send({ error: 'Not found' });
    return send(reply, file);
  });
}
