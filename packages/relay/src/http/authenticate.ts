import type { RelayContext } from '../context.js';
import { resolveToken } from '../context.js';
import { answer } from './answers.js';
import type { RelayMiddleware } from './env.js';

/**
 * Builds the middleware that guards authenticated routes, with the real server's answers:
 * 401 `Missing authorization header`, `Invalid token` or `Authentication failed` (docs/wire.md §0).
 * It runs before anything reads the body, so a request without a valid token costs the relay its
 * headers only, and its connection is closed with the answer.
 */
export function createAuthenticate(ctx: RelayContext): RelayMiddleware {
  return async function authenticate(c, next) {
    let userId: string | null;
    try {
      const header = c.req.header('authorization');
      if (!header || !header.startsWith('Bearer ')) {
        return answer(c, 401, { error: 'Missing authorization header' });
      }
      userId = resolveToken(ctx, header.substring('Bearer '.length));
    } catch {
      return answer(c, 401, { error: 'Authentication failed' });
    }
    if (!userId) return answer(c, 401, { error: 'Invalid token' });
    c.set('userId', userId);
    await next();
  };
}
