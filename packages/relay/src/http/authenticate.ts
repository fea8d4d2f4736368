import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RelayContext } from '../context.js';
import { resolveToken } from '../context.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The account of the bearer token; set by the relay's authenticate pre-handler. */
    relayUserId: string;
  }
}

/**
 * Builds the pre-handler that guards authenticated routes, with the real server's answers:
 * 401 `Missing authorization header`, `Invalid token` or `Authentication failed` (docs/wire.md §0).
 */
export function createAuthenticate(ctx: RelayContext) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    try {
      const header = request.headers.authorization;
      if (!header || !header.startsWith('Bearer ')) {
        return reply.code(401).send({ error: 'Missing authorization header' });
      }
      const userId = resolveToken(ctx, header.substring('Bearer '.length));
      if (!userId) {
        return reply.code(401).send({ error: 'Invalid token' });
      }
      request.relayUserId = userId;
    } catch {
      return reply.code(401).send({ error: 'Authentication failed' });
    }
  };
}

/** The pre-handler type of {@link createAuthenticate}. */
export type Authenticate = ReturnType<typeof createAuthenticate>;
