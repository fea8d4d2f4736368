import { isSdkError } from '../errors.js';
import { detectKind, TEXT_MIME_TYPE } from './detect.js';
import type { MediaKind } from './detect.js';
import { readMediaInput } from './input.js';
import type { MediaInput } from './input.js';
import { DEFAULT_MAX_MEDIA_BYTES } from './limits.js';
import { throwIfAborted } from './mediaError.js';
import { probeImage } from './probeImage.js';
import { probeVideo } from './probeVideo.js';

/**
 * An attachment ready to be encrypted and uploaded: its bytes and everything the `photo`, `video`
 * or `file` message that references it carries (session protocol v2; docs/wire.md §8.1).
 */
export interface PreparedMedia {
  kind: MediaKind;
  /** Display name: the option, else the file's base name, else `<kind>.<ext>`. */
  name: string;
  mimeType: string;
  /** Plaintext size in bytes (the `size` of a `file` / `video` message). */
  size: number;
  bytes: Buffer;
  photo?: { width: number; height: number; thumbhash: string };
  /** `poster`: the frame the thumbhash was computed from, as a PNG (docs/media.md, "Videos"). */
  video?: { width: number; height: number; durationMs: number; thumbhash: string; poster: Buffer };
}

/** The stages {@link prepareMedia} reports, in order (`probe` is skipped for plain files). */
export type PrepareStage = 'read' | 'detect' | 'probe' | 'done';

/** Options of {@link prepareMedia}. */
export interface PrepareMediaOptions {
  /** Display name; default: the base name of the path or file stream, else `fallbackName`. */
  name?: string;
  /** The name of an input that has none (bytes, an anonymous stream); default `<kind>.<ext>`. */
  fallbackName?: (kind: MediaKind, ext: string) => string;
  /** Type of content the detector cannot recognise (see `detectKind`); never overrides a photo's or video's type. */
  mimeType?: string;
  /**
   * Largest plaintext accepted, in bytes. Default: 10 MiB minus the 40 bytes encryption adds, so
   * the encrypted upload stays within the server's 10 485 760-byte limit (docs/wire.md §8.1).
   */
  maxBytes?: number;
  signal?: AbortSignal;
  onProgress?: (stage: PrepareStage) => void;
}

/**
 * Reads an input, decides from its content whether it is a photo, a video or a file, and for
 * photos and videos reads the displayed size (and duration) and computes the thumbhash. Limits are
 * checked before the input is read in full.
 *
 * A container that turns out to hold no video (audio only) is prepared as a plain file.
 *
 * Errors (each an `SdkError` with a hint): `media.unreadable_path`, `media.unreadable_stream`,
 * `media.empty_file`, `media.too_large`, `media.corrupt_image`, `media.truncated_video`,
 * `media.corrupt_video`, `media.ffmpeg_missing`, `media.unsupported`, `media.aborted`.
 */
export async function prepareMedia(
  input: MediaInput,
  options: PrepareMediaOptions = {},
): Promise<PreparedMedia> {
  const { signal, onProgress } = options;
  onProgress?.('read');
  const read = await readMediaInput(input, { maxBytes: options.maxBytes ?? DEFAULT_MAX_MEDIA_BYTES, signal });
  throwIfAborted(signal);
  onProgress?.('detect');
  const givenName = options.name ?? read.name;
  const detected = await detectKind(read.bytes, {
    ...(options.mimeType !== undefined ? { mimeType: options.mimeType } : {}),
    ...(givenName !== undefined ? { name: givenName } : {}),
  });
  const base = {
    name:
      givenName ??
      (options.fallbackName ?? defaultName)(
        detected.kind,
        detected.ext ?? (detected.mimeType === TEXT_MIME_TYPE ? 'txt' : 'bin'),
      ),
    size: read.bytes.length,
    bytes: read.bytes,
  };
  let prepared: PreparedMedia = { ...base, kind: 'file', mimeType: detected.mimeType };
  if (detected.kind === 'photo') {
    onProgress?.('probe');
    const { width, height, thumbhash, mimeType } = await probeImage(read.bytes);
    prepared = { ...base, kind: 'photo', mimeType, photo: { width, height, thumbhash } };
  } else if (detected.kind === 'video') {
    onProgress?.('probe');
    try {
      const { width, height, durationMs, thumbhash, poster } = await probeVideo(
        read.bytes,
        signal ? { signal } : {},
      );
      prepared = {
        ...base,
        kind: 'video',
        mimeType: detected.mimeType,
        video: { width, height, durationMs, thumbhash, poster },
      };
    } catch (error) {
      if (!isSdkError(error, 'media.no_video_stream')) throw error;
    }
  }
  throwIfAborted(signal);
  onProgress?.('done');
  return prepared;
}

function defaultName(kind: MediaKind, ext: string): string {
  return `${kind}.${ext}`;
}
