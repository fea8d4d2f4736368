import type sharpModule from 'sharp';
import { loadSharp } from './libraries.js';
import { THUMBHASH_MAX_SIDE } from './limits.js';
import { mediaError } from './mediaError.js';
import type { MediaError } from './mediaError.js';

/**
 * Decodes an image (its bytes, or the path of its file, read in order where it is) once into the
 * 100-px RGBA thumbnail a thumbhash is computed from. JPEG and WebP shrink while they load
 * (sharp's `fastShrinkOnLoad`, its default), so a 12-megapixel photo is never decoded at full size.
 * A file's loader is dropped from libvips' cache once decoded (see {@link dropCachedLoaders}).
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
  } finally {
    if (typeof image === 'string') dropCachedLoaders(sharp);
  }
}

/**
 * Empties libvips' operation cache, keeping its limits. The cache keeps the loader of a file it
 * decoded, and libvips' JPEG and WebP loaders map the whole file into memory: cached, that kept a
 * 10 MB photo in the process's memory through its upload and after (docs/media.md, "Memory"). Only
 * the cached operations go (the host's too, which libvips recomputes when next asked); nothing in
 * progress is affected.
 */
function dropCachedLoaders(sharp: typeof sharpModule): void {
  const { items } = sharp.cache();
  sharp.cache({ items: 0 });
  sharp.cache({ items: items.max });
}

/** The error for bytes that claim to be an image but do not decode. */
export function corruptImage(cause: unknown): MediaError {
  const reason = decoderReason(cause instanceof Error ? cause.message : String(cause));
  return mediaError(
    'media.corrupt_image',
    `The image cannot be decoded: ${reason}`,
    'The file is damaged or not really an image; re-export it, or send it as a plain file',
    { cause },
  );
}

/**
 * libvips' message in one line, each of its warnings once: it appends the decoder's warnings it
 * gathered on every try, so one damaged JPEG repeats the same two lines three times. The full
 * message stays on the error's `cause`.
 */
export function decoderReason(message: string): string {
  const lines = message
    .split('\n')
    .map((line) => line.trim().replace(/:$/, ''))
    .filter((line) => line !== '');
  const kept: string[] = [];
  // The first line often ends with the first warning too: a line already said is left out.
  for (const line of lines) if (!kept.some((k) => k.includes(line))) kept.push(line);
  return kept.join('; ');
}
