import { mediaError } from './mediaError.js';
import type { MediaError } from './mediaError.js';

/** One encoding `fit` tried: its size in pixels, its settings and how many bytes it came to. */
export interface FitAttempt {
  readonly width: number;
  readonly height: number;
  /** JPEG/WebP quality (images). */
  readonly quality?: number;
  /** Video bitrate in bits per second (videos). */
  readonly videoBitrate?: number;
  readonly format: string;
  readonly bytes: number;
}

/** What fitting produced: the bytes to send and what they are. */
export interface FitResult {
  readonly bytes: Buffer;
  readonly mimeType: string;
  /** Extension of the new format, without a dot (the display name is changed to it). */
  readonly ext: string;
  /** Every encoding tried, the last one being `bytes`. */
  readonly tried: readonly FitAttempt[];
}

/**
 * `media.too_large` after fitting failed: the message says how far it got, `details.tried` lists
 * every attempt (docs/media.md, "Fitting the server's limit").
 */
export function tooLargeAfterFit(
  what: 'image' | 'video' | 'file',
  size: number,
  maxBytes: number,
  tried: readonly FitAttempt[],
  why?: string,
): MediaError {
  const smallest = tried.reduce<FitAttempt | undefined>(
    (best, a) => (best && best.bytes <= a.bytes ? best : a),
    undefined,
  );
  const attempts = smallest
    ? `${tried.length} encoding${tried.length === 1 ? '' : 's'} tried, the smallest ${smallest.width}x${smallest.height} at ${smallest.bytes} bytes`
    : 'nothing could be tried';
  return mediaError(
    'media.too_large',
    `The ${what} is ${size} bytes and could not be made to fit in ${maxBytes} bytes: ${why ?? attempts}`,
    what === 'video'
      ? 'Trim the video or split it into shorter clips, or send it as a link'
      : what === 'image'
        ? 'Crop or downscale the image yourself, or send it as a link'
        : 'Compress it or split it into smaller files',
    { details: { size, maxBytes, tried } },
  );
}
