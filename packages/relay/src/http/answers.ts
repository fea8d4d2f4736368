import type { RelayContextHttp } from './env.js';

/** A JSON value an answer carries. */
export type Json = Record<string, unknown>;

/**
 * A JSON answer with `status`. A refusal that comes before the body was read (an early 401, 404
 * or 413) leaves the rest of the body unparsed: `@hono/node-server` discards what still arrives
 * for a moment, so the client can read the answer, then closes a connection that is still sending
 * (docs/relay.md, "The HTTP layer").
 */
export function answer(c: RelayContextHttp, status: number, body: Json): Response {
  return c.json(body, status as 200);
}

/**
 * An error in the shape of the real server's error handler (docs/wire.md §0): client errors as
 * `{error: name, message, statusCode}`, server errors without details.
 */
export function errorAnswer(c: RelayContextHttp, status: number, name: string, message: string): Response {
  if (status >= 500) {
    return answer(c, status, {
      error: 'Internal Server Error',
      message: 'An unexpected error occurred',
      statusCode: status,
    });
  }
  return answer(c, status, { error: name, message, statusCode: status });
}

/** The real server's answer to a body over the route's limit (fastify's, docs/wire.md §0). */
export function bodyTooLarge(c: RelayContextHttp): Response {
  return errorAnswer(c, 413, 'FastifyError', 'Request body is too large');
}
