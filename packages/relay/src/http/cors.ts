import type { RelayMiddleware } from './env.js';

const ALLOWED_METHODS = 'GET, POST, PUT, DELETE';

/**
 * CORS `*` like the real server (docs/wire.md §0), so a browser viewer on another origin can use
 * the relay: every answer allows any origin, and preflight requests are answered here.
 */
export const cors: RelayMiddleware = async (c, next) => {
  if (c.req.method === 'OPTIONS') {
    const requested = c.req.header('access-control-request-headers');
    return c.body(null, 204, {
      'Access-Control-Allow-Origin': '*',
      'Access-Control-Allow-Methods': ALLOWED_METHODS,
      'Access-Control-Allow-Headers': requested ?? '*',
      'Access-Control-Max-Age': '86400',
      Vary: 'Access-Control-Request-Headers',
    });
  }
  await next();
  c.res.headers.set('Access-Control-Allow-Origin', '*');
};
