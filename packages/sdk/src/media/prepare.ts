import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { isSdkError } from '../errors.js';
import { detectKind, TEXT_MIME_TYPE } from './detect.js';
import type { DetectedKind, DetectOverride, MediaKind } from './detect.js';
import { findMediaFile, readMediaInput } from './input.js';
import type { MediaFile, MediaInput } from './input.js';
import { DEFAULT_MAX_MEDIA_BYTES, MAX_FIT_INPUT_BYTES } from './limits.js';
import { fitImage } from './fitImage.js';
import type { FitAttempt, FitResult } from './fitFailure.js';
import { tooLargeAfterFit } from './fitFailure.js';
import { fitVideo } from './fitVideo.js';
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
  /** Set when the input was re-encoded to fit: its own size and every encoding tried. */
  fitted?: { originalBytes: number; tried: readonly FitAttempt[] };
}

/**
 * What to do with a photo or video over the size limit (docs/media.md, "Fitting the server's
 * limit"): `auto` (the default) re-encodes it until it fits; `never` refuses it with
 * `media.too_large`. Plain files are never changed.
 */
export type FitMode = 'auto' | 'never';

/**
 * The stages {@link prepareMedia} reports, in order: `compress` only when an input is re-encoded to
 * fit, `probe` not for plain files.
 */
export type PrepareStage = 'read' | 'detect' | 'compress' | 'probe' | 'done';

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
  /** Photos and videos over `maxBytes`: re-encode them until they fit (`auto`, default) or refuse them (`never`). */
  fit?: FitMode;
  /**
   * The largest input `fit: 'auto'` reads to re-encode, in bytes; default {@link MAX_FIT_INPUT_BYTES}
   * (512 MiB). Larger inputs are refused with `media.too_large` before they are read in full.
   */
  maxInputBytes?: number;
  signal?: AbortSignal;
  /**
   * Each stage as it starts, with the input's size from `detect` on; during `compress`, again with
   * the fraction done (0..1) when known.
   */
  onProgress?: (stage: PrepareStage, detail: PrepareProgressDetail) => void;
}

/** What {@link PrepareMediaOptions.onProgress} knows besides the stage. */
export interface PrepareProgressDetail {
  /** The input's size in bytes, once it has been read. */
  readonly inputBytes?: number;
  /** Share of the `compress` stage done, 0..1. */
  readonly fraction?: number;
}

/**
 * Where a prepared attachment's bytes are: read into memory, or still in the file it was given as
 * (read again, piece by piece, to upload it; docs/media.md, "Memory").
 */
export type MediaSource = { readonly bytes: Buffer } | { readonly file: MediaFile };

/** A {@link PreparedMedia} whose bytes may have stayed in their file: what the pipeline uploads. */
export type PreparedSource = Omit<PreparedMedia, 'bytes'> & { readonly source: MediaSource };

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
  const { source, ...prepared } = await prepareSource(input, options, { inPlace: false });
  return { ...prepared, bytes: 'bytes' in source ? source.bytes : await readFile(source.file.path) };
}

/**
 * {@link prepareMedia}, except that a path to a regular file within `maxBytes` is detected, probed
 * and later uploaded where it is (`inPlace`), never read into one buffer. Same errors.
 */
export async function prepareSource(
  input: MediaInput,
  options: PrepareMediaOptions,
  { inPlace }: { inPlace: boolean },
): Promise<PreparedSource> {
  const { signal, onProgress } = options;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MEDIA_BYTES;
  onProgress?.('read', {});
  const file = inPlace && typeof input === 'string' ? await fileWithin(input, maxBytes) : undefined;
  throwIfAborted(signal);
  if (file === undefined) return prepareRead(input, options);
  onProgress?.('detect', { inputBytes: file.size });
  const givenName = options.name ?? basename(file.path);
  const detected = await detectKind(file, detectOverride(options, givenName));
  const base = { name: givenName, size: file.size, source: { file } };
  return probe(base, detected, { path: file.path }, undefined, options);
}

/** The file at `path` when it is a regular one within `maxBytes`; else undefined (read it instead). */
async function fileWithin(path: string, maxBytes: number): Promise<MediaFile | undefined> {
  try {
    return await findMediaFile(path, maxBytes);
  } catch (error) {
    // Over the limit, a photo or video may still be fitted: that reads it, and refuses it there.
    if (isSdkError(error, 'media.too_large')) return undefined;
    throw error;
  }
}

/** Preparation of an input read into memory (bytes, a stream, a path to fit or to count). */
async function prepareRead(input: MediaInput, options: PrepareMediaOptions): Promise<PreparedSource> {
  const { signal, onProgress } = options;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MEDIA_BYTES;
  const fit = options.fit ?? 'auto';
  const readLimit =
    fit === 'auto' ? Math.max(maxBytes, options.maxInputBytes ?? MAX_FIT_INPUT_BYTES) : maxBytes;
  const read = await readMediaInput(input, { maxBytes: readLimit, signal });
  throwIfAborted(signal);
  const inputBytes = read.bytes.length;
  onProgress?.('detect', { inputBytes });
  const givenName = options.name ?? read.name;
  const detected = await detectKind(read.bytes, detectOverride(options, givenName));
  let name =
    givenName ??
    (options.fallbackName ?? defaultName)(
      detected.kind,
      detected.ext ?? (detected.mimeType === TEXT_MIME_TYPE ? 'txt' : 'bin'),
    );
  let bytes = read.bytes;
  let fitted: PreparedMedia['fitted'];
  if (bytes.length > maxBytes) {
    // Only `fit: 'auto'` reads past maxBytes, so this is a photo or video to re-encode, or a refusal.
    onProgress?.('compress', { inputBytes });
    const result = await fitToLimit(detected.kind, bytes, read.path, maxBytes, signal, (fraction) =>
      onProgress?.('compress', { inputBytes, fraction }),
    );
    fitted = { originalBytes: bytes.length, tried: result.tried };
    bytes = result.bytes;
    name = renameTo(name, result.ext);
    throwIfAborted(signal);
  }
  const base = { name, size: bytes.length, source: { bytes }, ...(fitted ? { fitted } : {}) };
  return probe(base, detected, bytes, inputBytes, options);
}

/** Probes a photo or video (from its bytes or its file) and completes what its message carries. */
async function probe(
  base: Pick<PreparedSource, 'name' | 'size' | 'source' | 'fitted'>,
  detected: DetectedKind,
  image: Buffer | { path: string },
  inputBytes: number | undefined,
  options: PrepareMediaOptions,
): Promise<PreparedSource> {
  const { signal, onProgress } = options;
  const progress = { inputBytes: inputBytes ?? base.size };
  let prepared: PreparedSource = { ...base, kind: 'file', mimeType: detected.mimeType };
  if (detected.kind === 'photo') {
    onProgress?.('probe', progress);
    const { width, height, thumbhash, mimeType } = await probeImage(
      Buffer.isBuffer(image) ? image : image.path,
    );
    prepared = { ...base, kind: 'photo', mimeType, photo: { width, height, thumbhash } };
  } else if (detected.kind === 'video') {
    onProgress?.('probe', progress);
    try {
      const video = await probeVideo(image, signal ? { signal } : {});
      const { width, height, durationMs, thumbhash, poster } = video;
      prepared = {
        ...base,
        kind: 'video',
        mimeType: base.fitted ? video.mimeType : detected.mimeType,
        video: { width, height, durationMs, thumbhash, poster },
      };
    } catch (error) {
      if (!isSdkError(error, 'media.no_video_stream')) throw error;
    }
  }
  throwIfAborted(signal);
  onProgress?.('done', progress);
  return prepared;
}

function detectOverride(options: PrepareMediaOptions, name: string | undefined): DetectOverride {
  return {
    ...(options.mimeType !== undefined ? { mimeType: options.mimeType } : {}),
    ...(name !== undefined ? { name } : {}),
  };
}

async function fitToLimit(
  kind: MediaKind,
  bytes: Buffer,
  path: string | undefined,
  maxBytes: number,
  signal: AbortSignal | undefined,
  onProgress: (fraction: number) => void,
): Promise<FitResult> {
  const options = { maxBytes, onProgress, ...(signal ? { signal } : {}) };
  if (kind === 'photo') return fitImage(bytes, options);
  // A path is transcoded from where it is; the bytes read from it are the same file.
  if (kind === 'video') return fitVideo(path === undefined ? bytes : { path, size: bytes.length }, options);
  throw tooLargeAfterFit('file', bytes.length, maxBytes, [], 'only photos and videos can be re-encoded');
}

/** `shot.png` re-encoded as JPEG is sent as `shot.jpg`. */
function renameTo(name: string, ext: string): string {
  const dot = name.lastIndexOf('.');
  return `${dot > 0 ? name.slice(0, dot) : name}.${ext}`;
}

function defaultName(kind: MediaKind, ext: string): string {
  return `${kind}.${ext}`;
}
