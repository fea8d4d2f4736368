import type { RelayContextHttp } from './env.js';

/** A JSON value an answer carries. */
export type Json = Record<string, unknown>;

/**
 * True while the request still has body bytes the relay has not read. Answering such a request
 * closes the connection afterwards, so a client cannot make the relay swallow a body it refused.
 */
function bodyPending(c: RelayContextHttp): boolean {
  const incoming = c.env.incoming;
  if (incoming.readableEnded || incoming.complete) return false;
  return incoming.headers['content-length'] !== undefined || incoming.headers['transfer-encoding'] !== undefined;
}

/**
 * A JSON answer with `status`. A refusal of a request whose body was not read (an early 401, 404
 * or 413) closes the connection after the answer instead of reading the rest.
 */
export function answer(c: RelayContextHttp, status: number, body: Json): Response {
  if (status >= 400 && bodyPending(c)) c.header('Connection', 'close');
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
