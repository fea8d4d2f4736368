import { SdkError } from '../errors.js';
import type { TransportErrorCode } from '../errorCodes.js';
import { REFUSED_TOKEN_HINT } from './keyHints.js';

/** The error code for an HTTP status that is not 2xx (docs/wire.md §0, §5.2; docs/transport.md, "Retries"). */
export function codeForStatus(status: number): TransportErrorCode {
  if (status === 401) return 'transport.unauthorized';
  if (status === 404) return 'transport.not_found';
  if (status === 408) return 'transport.timeout';
  if (status === 429) return 'transport.rate_limited';
  if (status === 507) return 'transport.storage_full';
  if (status >= 500) return 'transport.server_error';
  return 'transport.rejected';
}

/** The hint of `transport.storage_full`, for HTTP answers and socket acks alike. */
export const STORAGE_FULL_HINT =
  'the server\'s disk is full (the relay answers 507 storage_full) and nothing of the request was stored; appends, reads, state writes and uploads retry with backoff and go through once there is room: free space where the relay keeps its data (docs/relay.md, "A full disk")';

const hints: Partial<Record<TransportErrorCode, string>> = {
  'transport.unauthorized': REFUSED_TOKEN_HINT,
  'transport.not_found': 'the session does not exist on this server or belongs to another account',
  'transport.timeout':
    'the server gave up waiting for the request; appends, reads, state writes and uploads retry it with backoff',
  'transport.rate_limited':
    'the server asks to slow down; appends, reads, state writes and uploads wait its Retry-After, then retry',
  'transport.server_error':
    'the server failed; appends, reads, state writes and uploads retry it with backoff, other requests fail',
  'transport.storage_full': STORAGE_FULL_HINT,
  'transport.rejected': 'the server refused the request; see details.body for its reason',
};

/**
 * `Retry-After` in milliseconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3); undefined when
 * absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * The {@link SdkError} for a non-2xx answer. `details` carries the status, the server's error body
 * and, when the server sent `Retry-After`, the wait it asked for (`retryAfterMs`), so a caller can
 * see exactly what it said.
 */
export function httpStatusError(
  status: number,
  body: unknown,
  method: string,
  path: string,
  retryAfter?: string | null,
): SdkError {
  const code = codeForStatus(status);
  const reason =
    typeof body === 'object' && body !== null && typeof (body as { error?: unknown }).error === 'string'
      ? `: ${(body as { error: string }).error}`
      : '';
  const retryAfterMs = parseRetryAfter(retryAfter);
  return new SdkError(code, `${method} ${path} failed with HTTP ${status}${reason}.`, {
    hint: hints[code],
    details: { status, body, method, path, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) },
  });
}

/** The {@link SdkError} for a request that got no answer (refused, reset, DNS, time-out). */
export function httpNetworkError(error: unknown, method: string, path: string, url: string): SdkError {
  const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
  // fetch wraps the reason (`fetch failed`, cause `connect ECONNREFUSED …`); node:http gives it as is.
  const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause : error) : undefined;
  const cause = reason ? `: ${reason.message}` : '';
  return new SdkError(
    timedOut ? 'transport.timeout' : 'transport.network',
    timedOut
      ? `${method} ${path} got no answer in time from ${url}.`
      : `${method} ${path} could not reach ${url}${cause}.`,
    {
      hint: `check that a Happy server runs at ${url} (HAPPY_SERVER_URL) and that the network reaches it; appends, reads, state writes and uploads retry with backoff, other requests fail at once`,
      cause: error,
      details: { method, path, url },
    },
  );
}

/**
 * Statuses whose answer, when it is not JSON, says the server is not a Happy server: a success or
 * a "no such route / method" (404, 405, 501). A Happy server answers every route with JSON, its
 * 404s included; a 502-504 in HTML is a proxy in front of one that is restarting, and is retried.
 */
export function nonJsonMeansNotHappy(status: number): boolean {
  return (status >= 200 && status <= 299) || status === 404 || status === 405 || status === 501;
}

/** The {@link SdkError} for a server that answered, but not as a Happy server: it names what answered. */
export function notHappyServer(
  url: string,
  method: string,
  path: string,
  status: number,
  server: string | null,
  body: string,
): SdkError {
  const what = server ? `${server} ` : '';
  const said = body.replace(/\s+/g, ' ').trim().slice(0, 80);
  return new SdkError(
    'transport.not_happy_server',
    `${url} is not a Happy server: ${what}answered ${method} ${path} with HTTP ${status}${said ? ` "${said}"` : ''}, not JSON.`,
    {
      hint: 'point HAPPY_SERVER_URL (or --server, connect({ server })) at a Happy server or at the relay `happy-session serve` runs; check the port',
      details: { url, method, path, status, server, body: body.slice(0, 1000) },
    },
  );
}
