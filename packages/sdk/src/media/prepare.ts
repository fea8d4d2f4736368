import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { isSdkError } from '../errors.js';
import { detectKind, TEXT_MIME_TYPE } from './detect.js';
import type { DetectedKind, DetectOverride, MediaKind } from './detect.js';
import { findMediaFile, readMediaInput } from './input.js';
import type { MediaFile, MediaInput } from './input.js';
import { DEFAULT_MAX_MEDIA_BYTES, MAX_FIT_INPUT_BYTES } from './limits.js';
import { fitImage } from './fitImage.js';
import type { FitAttempt } from './fitFailure.js';
import { tooLargeAfterFit } from './fitFailure.js';
import { fitVideoToFile } from './fitVideo.js';
import { throwIfAborted } from './mediaError.js';
import type { MediaError } from './mediaError.js';
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
 * Where a prepared attachment's bytes are: read into memory, or in a file, read again piece by
 * piece to upload it (docs/media.md, "Memory"): the file it was given as, or the temporary file a
 * fitted video was written to, which `release` removes.
 */
export type MediaSource =
  { readonly bytes: Buffer } | { readonly file: MediaFile; readonly release?: () => Promise<void> };

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
  if ('bytes' in source) return { ...prepared, bytes: source.bytes };
  try {
    return { ...prepared, bytes: await readFile(source.file.path) };
  } finally {
    await releaseSource(source);
  }
}

/**
 * {@link prepareMedia}, except that a path to a regular file is detected, probed and later
 * uploaded where it is (`inPlace`), never read into one buffer. Either way a video given by path
 * over the limit is fitted by ffmpeg from where it is. Same errors. The caller releases the source
 * ({@link releaseSource}) once it is uploaded; after an error nothing is left to release.
 */
export async function prepareSource(
  input: MediaInput,
  options: PrepareMediaOptions,
  { inPlace }: { inPlace: boolean },
): Promise<PreparedSource> {
  const { signal, onProgress } = options;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MEDIA_BYTES;
  throwIfAborted(signal);
  onProgress?.('read', {});
  const file = typeof input === 'string' ? await findMediaFile(input, readLimit(options)) : undefined;
  throwIfAborted(signal);
  // Within the limit, only the pipeline leaves the file where it is; prepareMedia() returns it.
  if (file === undefined || (!inPlace && file.size <= maxBytes)) return prepareRead(input, options);
  onProgress?.('detect', { inputBytes: file.size });
  const givenName = options.name ?? basename(file.path);
  const detected = await detectKind(file, detectOverride(options, givenName));
  if (file.size > maxBytes) {
    // Only `fit: 'auto'` gets here. A photo is re-encoded from its bytes; a video from its file.
    if (detected.kind === 'photo') return prepareRead(input, options);
    if (detected.kind === 'file') throw cannotFit(file.size, maxBytes);
    return prepareFitted(file, givenName, detected, options);
  }
  const base = { name: givenName, size: file.size, source: { file } };
  return probe(base, detected, { path: file.path }, undefined, options);
}

/** Removes what a prepared source left on disk for its upload (a fitted video's temporary file). */
export async function releaseSource(source: MediaSource): Promise<void> {
  if ('file' in source) await source.release?.();
}

/** The most bytes an input may have: with `fit: 'auto'`, what may be read to re-encode it. */
function readLimit(options: PrepareMediaOptions): number {
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MEDIA_BYTES;
  return (options.fit ?? 'auto') === 'auto'
    ? Math.max(maxBytes, options.maxInputBytes ?? MAX_FIT_INPUT_BYTES)
    : maxBytes;
}

/** Preparation of an input read into memory (bytes, a stream, a path to fit or to count). */
async function prepareRead(input: MediaInput, options: PrepareMediaOptions): Promise<PreparedSource> {
  const { signal, onProgress } = options;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MEDIA_BYTES;
  const read = await readMediaInput(input, { maxBytes: readLimit(options), signal });
  throwIfAborted(signal);
  const inputBytes = read.bytes.length;
  onProgress?.('detect', { inputBytes });
  const givenName = options.name ?? read.name;
  const detected = await detectKind(read.bytes, detectOverride(options, givenName));
  const name =
    givenName ??
    (options.fallbackName ?? defaultName)(
      detected.kind,
      detected.ext ?? (detected.mimeType === TEXT_MIME_TYPE ? 'txt' : 'bin'),
    );
  if (inputBytes > maxBytes) {
    // Only `fit: 'auto'` reads past maxBytes, so this is a photo or video to re-encode, or a refusal.
    // ffmpeg reads a video's file where it is; the bytes read from it are the same file.
    const original =
      detected.kind === 'video' && read.path !== undefined
        ? { path: read.path, size: inputBytes }
        : read.bytes;
    return prepareFitted(original, name, detected, options);
  }
  const base = { name, size: inputBytes, source: { bytes: read.bytes } };
  return probe(base, detected, read.bytes, inputBytes, options);
}

/**
 * Re-encodes a photo or video over the limit until it fits, then probes the result. A fitted
 * video stays in its temporary file (docs/media.md, "Memory"), removed again if probing fails.
 */
async function prepareFitted(
  original: Buffer | { path: string; size: number },
  name: string,
  detected: DetectedKind,
  options: PrepareMediaOptions,
): Promise<PreparedSource> {
  const { signal, onProgress } = options;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_MEDIA_BYTES;
  const inputBytes = Buffer.isBuffer(original) ? original.length : original.size;
  onProgress?.('compress', { inputBytes });
  const fitOptions = {
    maxBytes,
    onProgress: (fraction: number) => onProgress?.('compress', { inputBytes, fraction }),
    ...(signal ? { signal } : {}),
  };
  let fitted: { source: MediaSource; size: number; ext: string; tried: readonly FitAttempt[] };
  if (detected.kind === 'photo') {
    // sharp re-encodes a photo from its bytes.
    const bytes = Buffer.isBuffer(original) ? original : await readFile(original.path);
    const { bytes: fittedBytes, ext, tried } = await fitImage(bytes, fitOptions);
    fitted = { source: { bytes: fittedBytes }, size: fittedBytes.length, ext, tried };
  } else if (detected.kind === 'video') {
    const { file, release, ext, tried } = await fitVideoToFile(original, fitOptions);
    fitted = { source: { file, release }, size: file.size, ext, tried };
  } else {
    throw cannotFit(inputBytes, maxBytes);
  }
  const base = {
    name: renameTo(name, fitted.ext),
    size: fitted.size,
    source: fitted.source,
    fitted: { originalBytes: inputBytes, tried: fitted.tried },
  };
  try {
    throwIfAborted(signal);
    const probed = 'bytes' in fitted.source ? fitted.source.bytes : { path: fitted.source.file.path };
    return await probe(base, detected, probed, inputBytes, options);
  } catch (error) {
    await releaseSource(fitted.source);
    throw error;
  }
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

/** `media.too_large` for a plain file over the limit: only photos and videos are re-encoded. */
function cannotFit(size: number, maxBytes: number): MediaError {
  return tooLargeAfterFit('file', size, maxBytes, [], 'only photos and videos can be re-encoded');
}

/** `shot.png` re-encoded as JPEG is sent as `shot.jpg`. */
function renameTo(name: string, ext: string): string {
  const dot = name.lastIndexOf('.');
  return `${dot > 0 ? name.slice(0, dot) : name}.${ext}`;
}

function defaultName(kind: MediaKind, ext: string): string {
  return `${kind}.${ext}`;
}
