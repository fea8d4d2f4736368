import type { FastifyError, FastifyInstance } from 'fastify';
import type { Logger } from 'happy-session';

/**
 * Error and not-found answers in the real server's shapes: client errors as
 * `{error: name, message, statusCode}`, server errors without details, unknown routes as
 * `{error:'Not found', path, method}`.
 */
export function installErrorHandlers(app: FastifyInstance, logger: Logger): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const statusCode = error.statusCode ?? 500;
    if (statusCode >= 500) {
      logger.error('relay request failed', {
        method: request.method,
        url: request.url,
        error: error.message,
      });
      return reply
        .code(statusCode)
        .send({ error: 'Internal Server Error', message: 'An unexpected error occurred', statusCode });
    }
    return reply
      .code(statusCode)
      .send({ error: error.name || 'Error', message: error.message || 'An error occurred', statusCode });
  });
  app.setNotFoundHandler((request, reply) => {
    return reply.code(404).send({ error: 'Not found', path: request.url, method: request.method });
  });
}
