import type { MediaErrorCode } from '../errorCodes.js';
import { SdkError } from '../errors.js';

/** An {@link SdkError} raised by the media layer. */
export type MediaError = SdkError<MediaErrorCode>;

/** Builds a media error; the hint is required so no media failure leaves the user without a next step. */
export function mediaError(
  code: MediaErrorCode,
  message: string,
  hint: string,
  extra: { cause?: unknown; details?: Record<string, unknown> } = {},
): MediaError {
  return new SdkError(code, message, { hint, ...extra });
}

/** Throws `media.aborted` when the signal has fired, so each stage stops before starting work. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortedError(signal);
}

/** The error every media stage raises when its AbortSignal fires. */
export function abortedError(signal: AbortSignal | undefined): MediaError {
  return mediaError(
    'media.aborted',
    'The attachment was aborted',
    'No message was appended; call again to retry',
    { cause: signal?.reason },
  );
}

/** True for the errors Node raises when an AbortSignal cancels an fs call, a stream or a child process. */
export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}
