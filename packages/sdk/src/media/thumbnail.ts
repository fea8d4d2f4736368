import { loadSharp } from './libraries.js';
import { THUMBHASH_MAX_SIDE } from './limits.js';
import { mediaError } from './mediaError.js';
import type { MediaError } from './mediaError.js';

/**
 * Decodes an image (its bytes, or the path of its file, read in order where it is) once into the
 * 100-px RGBA thumbnail a thumbhash is computed from. JPEG and WebP shrink while they load
 * (sharp's `fastShrinkOnLoad`, its default), so a 12-megapixel photo is never decoded at full size.
 */
export async function decodeThumbnail(
  image: Buffer | string,
): Promise<{ width: number; height: number; rgba: Buffer }> {
  const sharp = await loadSharp();
  try {
    const { data, info } = await sharp(image, { autoOrient: true, sequentialRead: true })
      .resize(THUMBHASH_MAX_SIDE, THUMBHASH_MAX_SIDE, { fit: 'inside' })
      .toColourspace('srgb')
      .ensureAlpha()
      .raw({ depth: 'uchar' })
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 4) throw new Error(`decoded to ${info.channels} channels, not RGBA`);
    return { width: info.width, height: info.height, rgba: data };
  } catch (cause) {
    throw corruptImage(cause);
  }
}

/** The error for bytes that claim to be an image but do not decode. */
export function corruptImage(cause: unknown): MediaError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return mediaError(
    'media.corrupt_image',
    `The image cannot be decoded: ${reason}`,
    'The file is damaged or not really an image; re-export it, or send it as a plain file',
    { cause },
  );
}
