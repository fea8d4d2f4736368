import { rgbaToThumbHash } from 'thumbhash';
import { THUMBHASH_MAX_SIDE } from './limits.js';
import { mediaError } from './mediaError.js';
import { decodeThumbnail } from './thumbnail.js';

/**
 * Hashes RGBA pixels (not premultiplied, row by row) with ThumbHash and returns the hash as standard
 * base64, the encoding the `thumbhash` field of `photo` / `video` messages carries (docs/wire.md §8.3).
 *
 * Throws `media.invalid_pixels` when a side is not an integer in 1..100 or `rgba` is not `width*height*4` bytes.
 */
export function thumbhashFromRgba(width: number, height: number, rgba: Uint8Array): string {
  if (!isSide(width) || !isSide(height)) {
    throw mediaError(
      'media.invalid_pixels',
      `A thumbhash needs an image of at most ${THUMBHASH_MAX_SIDE}x${THUMBHASH_MAX_SIDE} pixels, not ${width}x${height}`,
      'Downscale the image first, or use thumbhashFromImage',
    );
  }
  if (rgba.length !== width * height * 4) {
    throw mediaError(
      'media.invalid_pixels',
      `Expected ${width * height * 4} bytes of RGBA for ${width}x${height}, got ${rgba.length}`,
      'Pass 4 bytes (R, G, B, A) per pixel, row by row',
    );
  }
  return Buffer.from(rgbaToThumbHash(width, height, rgba)).toString('base64');
}

/**
 * Computes the thumbhash of an encoded image (any format sharp decodes) the way the Happy app
 * does (docs/wire.md §8.3): EXIF orientation applied, scaled to fit inside 100x100 (longest side 100),
 * RGBA.
 *
 * Throws `media.corrupt_image` when sharp cannot decode the image.
 */
export async function thumbhashFromImage(image: Buffer): Promise<string> {
  const { width, height, rgba } = await decodeThumbnail(image);
  return thumbhashFromRgba(width, height, rgba);
}

function isSide(n: number): boolean {
  return Number.isInteger(n) && n >= 1 && n <= THUMBHASH_MAX_SIDE;
}
