import { SdkError } from '../errors.js';
import type { TransportErrorCode } from '../errorCodes.js';
import { REFUSED_TOKEN_HINT } from './keyHints.js';

/** The error code for an HTTP status that is not 2xx (docs/wire.md §0, §5.2). */
export function codeForStatus(status: number): TransportErrorCode {
  if (status === 401) return 'transport.unauthorized';
  if (status === 404) return 'transport.not_found';
  if (status >= 500) return 'transport.server_error';
  return 'transport.rejected';
}

const hints: Record<string, string> = {
  'transport.unauthorized': REFUSED_TOKEN_HINT,
  'transport.not_found': 'the session does not exist on this server or belongs to another account',
  'transport.server_error': 'the server failed; the request is retried automatically where that is safe',
  'transport.rejected': 'the server refused the request; see details.body for its reason',
};

/**
 * The {@link SdkError} for a non-2xx answer. `details` carries the status and the server's error
 * body, so a caller can see exactly what it said.
 */
export function httpStatusError(status: number, body: unknown, method: string, path: string): SdkError {
  const code = codeForStatus(status);
  const reason =
    typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string'
      ? `: ${(body as { error: string }).error}`
      : '';
  return new SdkError(code, `${method} ${path} failed with HTTP ${status}${reason}.`, {
    hint: hints[code],
    details: { status, body, method, path },
  });
}

/** The {@link SdkError} for a request that got no answer (refused, reset, DNS, time-out). */
export function httpNetworkError(error: unknown, method: string, path: string, url: string): SdkError {
  const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
  const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return new SdkError(
    timedOut ? 'transport.timeout' : 'transport.network',
    timedOut
      ? `${method} ${path} got no answer in time from ${url}.`
      : `${method} ${path} could not reach ${url}${cause}.`,
    {
      hint: 'check the network and HAPPY_SERVER_URL; the request is retried automatically where that is safe',
      cause: error,
      details: { method, path, url },
    },
  );
}
