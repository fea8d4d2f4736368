import { SdkError } from '../errors.js';

/** Codes a transport fails with. */
export type TransportErrorCode =
  | 'transport.network'
  | 'transport.timeout'
  | 'transport.server_error'
  | 'transport.rejected'
  | 'transport.unauthorized'
  | 'transport.not_found'
  | 'transport.closed'
  | 'transport.bad_response'
  | 'transport.format_unsupported'
  | 'transport.invalid_metadata';

const retryable: ReadonlySet<string> = new Set([
  'transport.network',
  'transport.timeout',
  'transport.server_error',
]);

/**
 * True for failures worth retrying with the same records (network errors, time-outs, 5xx).
 * A 4xx is the server saying no, and retrying would only repeat it (happy-wire §5.2).
 */
export function isRetryableTransportError(error: unknown): boolean {
  return error instanceof SdkError && retryable.has(error.code);
}
