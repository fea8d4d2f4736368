import type { FastifyInstance } from 'fastify';

const ALLOWED_METHODS = 'GET, POST, PUT, DELETE';

/**
 * CORS `*` like the real server (docs/wire.md §0), so a browser viewer on another origin can use
 * the relay: every answer allows any origin, and preflight requests are answered here.
 */
export function installCors(app: FastifyInstance): void {
  app.addHook('onRequest', async (request, reply) => {
    reply.header('Access-Control-Allow-Origin', '*');
    if (request.method !== 'OPTIONS') return;
    const requestedHeaders = request.headers['access-control-request-headers'];
    return reply
      .header('Access-Control-Allow-Methods', ALLOWED_METHODS)
      .header('Access-Control-Allow-Headers', requestedHeaders ?? '*')
      .header('Access-Control-Max-Age', '86400')
      .header('Vary', 'Access-Control-Request-Headers')
      .code(204)
      .send();
  });
}
