import type { Metadata } from 'sharp';
import { loadSharp } from './libraries.js';
import { MAX_IMAGE_PIXELS } from './limits.js';
import { mediaError } from './mediaError.js';
import { thumbhashFromRgba } from './thumbhash.js';
import { corruptImage, decodeThumbnail } from './thumbnail.js';

/** What a `photo` message needs to know about an image (session protocol v2 `photo`, docs/wire.md §8.1). */
export interface ImageProbe {
  /** Width as displayed, after EXIF orientation (5-8 swap the stored sides). */
  width: number;
  /** Height as displayed, after EXIF orientation. */
  height: number;
  /** Standard-base64 ThumbHash (docs/wire.md §8.3). */
  thumbhash: string;
  /** The type of the decoded format, e.g. `image/jpeg`. */
  mimeType: string;
}

/**
 * Reads an image's displayed size and computes its thumbhash, decoding the pixels once. The size
 * comes from the header (cheap); the header's pixel count is checked before the decode, so an image
 * that would inflate to gigabytes is refused without being decoded.
 *
 * A path is read where it is, in order (sharp's `sequentialRead`), never into one buffer; a JPEG
 * or WebP shrinks while it loads, so the thumbnail never costs a full-size decode (docs/media.md,
 * "Memory").
 *
 * Errors: `media.corrupt_image` (not decodable by sharp), `media.too_large` (more than
 * {@link MAX_IMAGE_PIXELS} pixels).
 */
export async function probeImage(image: Buffer | string): Promise<ImageProbe> {
  const sharp = await loadSharp();
  let metadata: Metadata;
  try {
    // The pixel limit is checked below with a clearer error; reading the header decodes nothing.
    metadata = await sharp(image, { limitInputPixels: false }).metadata();
  } catch (cause) {
    throw corruptImage(cause);
  }
  const { width, height } = metadata.autoOrient;
  if (width * height > MAX_IMAGE_PIXELS) {
    throw mediaError(
      'media.too_large',
      `The image is ${width}x${height} pixels; at most ${MAX_IMAGE_PIXELS} pixels can be decoded`,
      'Downscale the image, or send it as a plain file',
      { details: { width, height, maxPixels: MAX_IMAGE_PIXELS } },
    );
  }
  const thumbnail = await decodeThumbnail(image);
  const thumbhash = thumbhashFromRgba(thumbnail.width, thumbnail.height, thumbnail.rgba);
  return { width, height, thumbhash, mimeType: mimeTypeOf(metadata) };
}

/** The MIME type of the format sharp decoded; HEIF is the container of both AVIF and HEIC. */
function mimeTypeOf(metadata: Metadata): string {
  switch (metadata.format) {
    case 'jpeg':
      return 'image/jpeg';
    case 'heif':
      return metadata.compression === 'av1' ? 'image/avif' : 'image/heic';
    case 'svg':
      return 'image/svg+xml';
    default:
      return `image/${metadata.format}`;
  }
}
