import { SdkError } from '../errors.js';

/**
 * Every failure kind of the media pipeline: preparation, upload, download (happy-wire §8). Each is raised as an {@link SdkError}
 * whose `hint` says what the user can do about it.
 */
export type MediaErrorCode =
  | 'media.unreadable_path'
  | 'media.unreadable_stream'
  | 'media.empty_file'
  | 'media.too_large'
  | 'media.corrupt_image'
  | 'media.corrupt_video'
  | 'media.truncated_video'
  | 'media.no_video_stream'
  | 'media.ffmpeg_missing'
  | 'media.unsupported'
  | 'media.invalid_pixels'
  | 'media.aborted'
  | 'media.upload_rejected'
  | 'media.upload_failed'
  | 'media.download_failed'
  | 'media.decrypt_failed'
  | 'media.bad_ref'
  | 'media.not_a_path';

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
