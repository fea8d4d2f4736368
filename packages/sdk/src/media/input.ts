import { createReadStream } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename } from 'node:path';
import { Readable, addAbortSignal } from 'node:stream';
import { isSdkError } from '../errors.js';
import { abortedError, isAbortError, mediaError, throwIfAborted } from './mediaError.js';
import type { MediaError } from './mediaError.js';
import { DEFAULT_MAX_MEDIA_BYTES } from './limits.js';

/**
 * What media preparation accepts: a filesystem path, bytes (a `Buffer` is a `Uint8Array`), or a
 * Node readable stream.
 */
export type MediaInput = string | Uint8Array | NodeJS.ReadableStream | Readable;

/** Options of {@link readMediaInput}. */
export interface ReadMediaInputOptions {
  /**
   * Inputs longer than this are refused with `media.too_large`, before they are read in full.
   * Default {@link DEFAULT_MAX_MEDIA_BYTES}: the most that still uploads to a Happy server.
   */
  maxBytes?: number;
  signal?: AbortSignal;
}

/** The bytes of an input, with the path and display name when the input had them. */
export interface MediaBytes {
  bytes: Buffer;
  path?: string;
  name?: string;
}

/**
 * Reads a {@link MediaInput} into memory, refusing it as early as possible: a path by its size on
 * disk before any byte is read, a stream as soon as its running count passes `maxBytes` (the stream
 * is then destroyed, so the rest is never pulled). Bytes given as a `Uint8Array` are not copied.
 *
 * Errors (all {@link MediaError}): `media.unreadable_path`, `media.unreadable_stream`,
 * `media.empty_file`, `media.too_large`, `media.unsupported` (not a path, bytes or stream),
 * `media.aborted`.
 */
export async function readMediaInput(
  input: MediaInput,
  readOptions: ReadMediaInputOptions = {},
): Promise<MediaBytes> {
  const options = { ...readOptions, maxBytes: readOptions.maxBytes ?? DEFAULT_MAX_MEDIA_BYTES };
  throwIfAborted(options.signal);
  if (typeof input === 'string') return readPath(input, options);
  if (input instanceof Uint8Array) {
    const bytes = Buffer.isBuffer(input)
      ? input
      : Buffer.from(input.buffer, input.byteOffset, input.byteLength);
    checkSize(bytes.length, options.maxBytes, 'The data');
    return { bytes };
  }
  if (isNodeStream(input)) {
    const name = streamFileName(input);
    const bytes = await readStream(input, options, 'The stream', (cause) =>
      mediaError(
        'media.unreadable_stream',
        'The input stream failed while it was read',
        "Check the stream's source and pass a new stream",
        { cause },
      ),
    );
    return name === undefined ? { bytes } : { bytes, name };
  }
  throw mediaError(
    'media.unsupported',
    `Cannot read media from a ${describe(input)}`,
    'Pass a file path, a Buffer/Uint8Array, or a Node readable stream',
  );
}

/**
 * A regular file on disk that is read where it is instead of into memory (docs/media.md,
 * "Memory"): its path and what `stat` said of it when it was found, so a later read can tell
 * whether it changed meanwhile.
 */
export interface MediaFile {
  readonly path: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/**
 * The regular file at `path`, checked like {@link readMediaInput} checks a path (exists, not a
 * directory, not empty, at most `maxBytes`) but not read; undefined for what has no useful size
 * on disk (a FIFO, a device), which only reading can measure.
 *
 * Errors: `media.unreadable_path`, `media.empty_file`, `media.too_large`.
 */
export async function findMediaFile(path: string, maxBytes: number): Promise<MediaFile | undefined> {
  let stats: Stats;
  try {
    stats = await stat(path);
  } catch (cause) {
    throw unreadablePath(path, cause);
  }
  if (stats.isDirectory()) {
    throw mediaError(
      'media.unreadable_path',
      `${path} is a directory, not a file`,
      'Pass the path of a file',
      {
        details: { path },
      },
    );
  }
  if (!stats.isFile()) return undefined;
  checkSize(stats.size, maxBytes, path);
  return { path, size: stats.size, mtimeMs: stats.mtimeMs };
}

async function readPath(
  path: string,
  options: ReadMediaInputOptions & { maxBytes: number },
): Promise<MediaBytes> {
  const name = basename(path);
  const onFailure = (cause: unknown): MediaError => unreadablePath(path, cause);
  const file = await findMediaFile(path, options.maxBytes);
  if (file === undefined) {
    // A FIFO or a device reports no useful size; count its bytes as they come instead.
    const bytes = await readStream(createReadStream(path), options, path, onFailure);
    return { bytes, path, name };
  }
  let bytes: Buffer;
  try {
    bytes = await readFile(path, options.signal ? { signal: options.signal } : {});
  } catch (cause) {
    if (isAbortError(cause)) throw abortedError(options.signal);
    throw onFailure(cause);
  }
  // The file may have changed between stat and read.
  checkSize(bytes.length, options.maxBytes, path);
  return { bytes, path, name };
}

async function readStream(
  input: NodeJS.ReadableStream | Readable,
  options: ReadMediaInputOptions & { maxBytes: number },
  what: string,
  onFailure: (cause: unknown) => MediaError,
): Promise<Buffer> {
  const readable = input instanceof Readable ? input : new Readable().wrap(input);
  if (options.signal) addAbortSignal(options.signal, readable);
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    for await (const chunk of readable as AsyncIterable<Buffer | string>) {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      total += buffer.length;
      // Leaving the loop by throwing destroys the stream, so the rest is never read.
      if (total > options.maxBytes) throw tooLarge(what, options.maxBytes, { readBytes: total });
      chunks.push(buffer);
    }
  } catch (cause) {
    if (isSdkError(cause)) throw cause;
    if (isAbortError(cause) || options.signal?.aborted) throw abortedError(options.signal);
    throw onFailure(cause);
  }
  checkSize(total, options.maxBytes, what);
  return Buffer.concat(chunks, total);
}

function checkSize(size: number, maxBytes: number, what: string): void {
  if (size === 0) {
    throw mediaError(
      'media.empty_file',
      `${what} is empty (0 bytes)`,
      'Check that the file was written completely before attaching it',
    );
  }
  if (size > maxBytes) throw tooLarge(what, maxBytes, { size });
}

function tooLarge(what: string, maxBytes: number, details: Record<string, number>): MediaError {
  const size = details.size === undefined ? `more than ${maxBytes} bytes` : `${details.size} bytes`;
  return mediaError(
    'media.too_large',
    `${what} is ${size}; attachments may be at most ${maxBytes} bytes`,
    'Compress or downscale it, or split it into smaller files',
    { details: { ...details, maxBytes } },
  );
}

/** The error for a path that cannot be read: missing, denied, or failing. */
export function unreadablePath(path: string, cause: unknown): MediaError {
  const code = (cause as NodeJS.ErrnoException | undefined)?.code;
  const why =
    code === 'ENOENT'
      ? 'does not exist'
      : code === 'EACCES' || code === 'EPERM'
        ? 'is not readable'
        : 'cannot be read';
  return mediaError('media.unreadable_path', `${path} ${why}`, "Check the path and the file's permissions", {
    cause,
    details: { path, ...(code ? { errno: code } : {}) },
  });
}

function isNodeStream(value: unknown): value is NodeJS.ReadableStream | Readable {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { pipe?: unknown }).pipe === 'function' &&
    typeof (value as { on?: unknown }).on === 'function'
  );
}

/** An `fs.ReadStream` knows its file; use its base name as the display name. */
function streamFileName(stream: object): string | undefined {
  const path = (stream as { path?: unknown }).path;
  if (typeof path === 'string') return basename(path);
  if (Buffer.isBuffer(path)) return basename(path.toString());
  return undefined;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return (value as object).constructor?.name ?? 'object';
  return typeof value;
}
