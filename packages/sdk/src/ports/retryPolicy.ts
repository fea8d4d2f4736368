import { isSdkError } from '../errors.js';

/** Codes that say the request may succeed if sent again: no answer, a time-out, a 5xx. */
const RETRYABLE: ReadonlySet<string> = new Set([
  'transport.network',
  'transport.timeout',
  'transport.server_error',
]);

/**
 * True for failures worth retrying with the same records (network errors, time-outs, 5xx).
 * A 4xx is the server saying no, and retrying would only repeat it (docs/wire.md §5.2).
 */
export function isRetryableTransportError(error: unknown): boolean {
  return isSdkError(error) && RETRYABLE.has(error.code);
}
