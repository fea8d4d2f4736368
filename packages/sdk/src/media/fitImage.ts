import type { Sharp } from 'sharp';
import { loadSharp } from './libraries.js';
import { MAX_IMAGE_PIXELS } from './limits.js';
import { mediaError, throwIfAborted } from './mediaError.js';
import { corruptImage } from './thumbnail.js';
import { tooLargeAfterFit } from './fitFailure.js';
import type { FitAttempt, FitResult } from './fitFailure.js';

/** JPEG/WebP qualities tried at each size, best first. */
const QUALITIES = [85, 75, 62] as const;
/** The longest side below which an image is not shrunk further: past it, a photo is no longer useful. */
export const MIN_FIT_IMAGE_SIDE = 480;
/** Most encodings tried before giving up. */
const MAX_ATTEMPTS = 10;

/** Options of {@link fitImage}. */
export interface FitImageOptions {
  /** The largest result accepted, in bytes. */
  readonly maxBytes: number;
  readonly signal?: AbortSignal;
  /** How far it got, 0..1, after each attempt (an estimate: the attempts needed are not known ahead). */
  readonly onProgress?: (fraction: number) => void;
}

/**
 * Re-encodes an image until it fits in `maxBytes` (docs/media.md, "Fitting the server's limit"):
 * EXIF orientation applied and metadata dropped, JPEG (or WebP for an image with transparency)
 * at falling quality steps, then downscaled by the factor the last size suggests, down to
 * {@link MIN_FIT_IMAGE_SIDE} pixels on the longest side.
 *
 * Errors: `media.too_large` with every attempt in `details.tried` when nothing fits (or the image has
 * more than `MAX_IMAGE_PIXELS` pixels), `media.corrupt_image`, `media.aborted`.
 */
export async function fitImage(bytes: Buffer, options: FitImageOptions): Promise<FitResult> {
  const sharp = await loadSharp();
  let width: number;
  let height: number;
  let hasAlpha: boolean;
  let format: string;
  try {
    const metadata = await sharp(bytes, { limitInputPixels: false }).metadata();
    ({ width, height } = metadata.autoOrient);
    hasAlpha = metadata.hasAlpha;
    format = metadata.format;
  } catch (cause) {
    throw corruptImage(cause);
  }
  if (width * height > MAX_IMAGE_PIXELS) {
    throw mediaError(
      'media.too_large',
      `The image is ${width}x${height} pixels; at most ${MAX_IMAGE_PIXELS} pixels can be decoded to compress it`,
      'Downscale the image before attaching it, or send it as a plain file of at most 10 MiB',
      { details: { width, height, maxPixels: MAX_IMAGE_PIXELS, tried: [] } },
    );
  }
  const output = format === 'webp' || (hasAlpha && format !== 'jpeg') ? 'webp' : 'jpeg';
  const tried: FitAttempt[] = [];
  let scale = 1;
  let quality = 0;
  while (tried.length < MAX_ATTEMPTS) {
    throwIfAborted(options.signal);
    const q = QUALITIES[quality]!;
    const w = Math.max(1, Math.round(width * scale));
    const h = Math.max(1, Math.round(height * scale));
    const encoded = await encode(sharp(bytes, { limitInputPixels: false }), { w, h, scale, q, output });
    tried.push({ width: w, height: h, quality: q, format: output, bytes: encoded.length });
    options.onProgress?.(Math.min(0.95, tried.length / 4));
    if (encoded.length <= options.maxBytes) {
      return {
        bytes: encoded,
        mimeType: `image/${output}`,
        ext: output === 'jpeg' ? 'jpg' : 'webp',
        tried,
      };
    }
    if (quality < QUALITIES.length - 1 && encoded.length < options.maxBytes * 2.5) {
      quality++;
      continue;
    }
    // Bytes grow with the pixel count: shrink both sides by the root of the excess, with a margin;
    // not below the smallest useful size, which gets one last try at the lowest quality.
    const smallest = Math.min(1, MIN_FIT_IMAGE_SIDE / Math.max(width, height));
    if (scale <= smallest) break;
    const next = scale * Math.sqrt(options.maxBytes / encoded.length) * 0.9;
    scale = Math.max(next, smallest);
    quality = scale === smallest ? QUALITIES.length - 1 : 1;
  }
  throw tooLargeAfterFit('image', bytes.length, options.maxBytes, tried);
}

async function encode(
  image: Sharp,
  o: { w: number; h: number; scale: number; q: number; output: 'jpeg' | 'webp' },
): Promise<Buffer> {
  try {
    let pipeline = image.rotate();
    if (o.scale < 1) pipeline = pipeline.resize(o.w, o.h, { fit: 'fill' });
    pipeline =
      o.output === 'jpeg'
        ? pipeline.flatten({ background: '#ffffff' }).jpeg({ quality: o.q })
        : pipeline.webp({ quality: o.q, effort: 2 });
    return await pipeline.toBuffer();
  } catch (cause) {
    throw corruptImage(cause);
  }
}
