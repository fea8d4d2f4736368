import { lookup as mimeTypeOfName, charset as charsetOfType } from 'mime-types';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { loadFileType } from './libraries.js';
import { unreadablePath } from './input.js';

/** What an attachment is sent as: the v2 message type it becomes (docs/protocol.md, `photo` / `video` / `file`). */
export type MediaKind = 'photo' | 'video' | 'file';

/** The outcome of {@link detectKind}. */
export interface DetectedKind {
  kind: MediaKind;
  mimeType: string;
  /** The usual file extension of the detected content, without a dot; absent when nothing was recognised. */
  ext?: string;
}

/**
 * Image types sent as a `photo`: the ones sharp decodes with its prebuilt binaries. Other images
 * (HEIC, JPEG XL, BMP, PSD, ...) become a `file`, since no thumbhash or dimensions can be read.
 */
const PHOTO_MIME_TYPES: ReadonlySet<string> = new Set([
  'image/jpeg',
  'image/png',
  'image/apng',
  'image/webp',
  'image/gif',
  'image/avif',
  'image/tiff',
]);

/**
 * Leading bytes of the photo formats. `file-type` also checks the structure after them and gives up
 * on a damaged file; content that starts like an image is still meant as a photo, and should fail
 * as a corrupt image rather than travel as an opaque file.
 */
const PHOTO_SIGNATURES: ReadonlyArray<{ mime: string; ext: string; at: number; bytes: string }> = [
  { mime: 'image/png', ext: 'png', at: 0, bytes: '\x89PNG\r\n\x1a\n' },
  { mime: 'image/jpeg', ext: 'jpg', at: 0, bytes: '\xff\xd8\xff' },
  { mime: 'image/gif', ext: 'gif', at: 0, bytes: 'GIF8' },
  { mime: 'image/webp', ext: 'webp', at: 8, bytes: 'WEBP' },
  { mime: 'image/tiff', ext: 'tif', at: 0, bytes: 'II*\x00' },
  { mime: 'image/tiff', ext: 'tif', at: 0, bytes: 'MM\x00*' },
  { mime: 'image/avif', ext: 'avif', at: 4, bytes: 'ftypavif' },
];

/** Bytes of a file's start the photo signatures reach into. */
const SIGNATURE_BYTES = 16;

/** The first bytes of a file, as many as the photo signatures look at. */
async function fileHead(path: string): Promise<Uint8Array> {
  const handle = await open(path, 'r');
  try {
    const head = new Uint8Array(SIGNATURE_BYTES);
    const { bytesRead } = await handle.read(head, 0, SIGNATURE_BYTES, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

function photoBySignature(bytes: Uint8Array): { mime: string; ext: string } | undefined {
  const head = Buffer.from(
    bytes.buffer,
    bytes.byteOffset,
    Math.min(bytes.byteLength, SIGNATURE_BYTES),
  ).toString('latin1');
  return PHOTO_SIGNATURES.find((signature) => head.startsWith(signature.bytes, signature.at));
}

/** The type used for content nobody recognised, when the caller did not name one. */
export const UNKNOWN_MIME_TYPE = 'application/octet-stream';

/** The type of text content whose name says nothing more specific. */
export const TEXT_MIME_TYPE = 'text/plain';

/** Text types the MIME database gives no charset, though their content is text all the same. */
const TEXTUAL_TYPES: ReadonlySet<string> = new Set([
  'application/xml',
  'application/toml',
  'application/x-sh',
  'application/sql',
  'application/javascript',
  'image/svg+xml',
]);

/** True for a type whose content is text: `text/*`, JSON, YAML, XML and the like. */
function isTextType(mimeType: string): boolean {
  return (
    charsetOfType(mimeType) === 'UTF-8' || TEXTUAL_TYPES.has(mimeType) || /\+(json|xml|yaml)$/.test(mimeType)
  );
}

/**
 * True when content with no magic bytes reads as text: valid UTF-8 with no NUL and no control
 * characters but tab, line breaks, form feed and escape (which coloured logs carry). A file is
 * decoded piece by piece as it is read, never held whole.
 */
async function isUtf8Text(input: Uint8Array | { readonly path: string }): Promise<boolean> {
  const utf8 = new TextDecoder('utf-8', { fatal: true });
  try {
    if (input instanceof Uint8Array) return isCleanText(utf8.decode(input));
    for await (const piece of createReadStream(input.path) as AsyncIterable<Buffer>) {
      if (!isCleanText(utf8.decode(piece, { stream: true }))) return false;
    }
    return isCleanText(utf8.decode());
  } catch (error) {
    if (error instanceof TypeError) return false; // not UTF-8
    throw unreadablePath((input as { path: string }).path, error);
  }
}

function isCleanText(text: string): boolean {
  // eslint-disable-next-line no-control-regex
  return !/[\x00-\x08\x0e-\x1a\x1c-\x1f\x7f]/.test(text);
}

/**
 * The type of content no magic bytes identify: the caller's `mimeType` if given; for text, the
 * type the name's extension gives when that is a text type (`.md`, `.json`, `.csv`, `.yaml`, …),
 * else `text/plain`; anything else is `application/octet-stream`. A name whose extension promises
 * binary content (`clip.ts`, a `.png` that holds text) loses to the bytes.
 */
async function typeOfUnrecognised(
  input: Uint8Array | { readonly path: string },
  override: DetectOverride,
): Promise<string> {
  if (override.mimeType !== undefined) return override.mimeType;
  if (!(await isUtf8Text(input))) return UNKNOWN_MIME_TYPE;
  const named = override.name !== undefined ? mimeTypeOfName(override.name) : false;
  return named && isTextType(named) ? named : TEXT_MIME_TYPE;
}

/** What a caller knows about content besides its bytes (see {@link detectKind}). */
export interface DetectOverride {
  /** The type of content the detector cannot recognise; never overrides a photo's or video's type. */
  mimeType?: string;
  /** The file name, whose extension names the type of a text file (`notes.md`, `data.csv`). */
  name?: string;
}

/**
 * Decides from the bytes (magic numbers, via `file-type`) whether content is a photo, a video or a
 * plain file, and its MIME type (docs/media.md, "What `attach(input, options)` does"). A file given as
 * `{ path }` is read where it is: its head for the magic numbers, and, for content they do not
 * identify, the rest piece by piece for the text check (`media.unreadable_path` if it cannot be).
 *
 * Content with no magic bytes that decodes as UTF-8 text is `text/plain`, or the text type its
 * `name`'s extension gives (`text/markdown`, `application/json`, `text/csv`, `text/yaml`, …); the
 * bytes win when they disagree with the name. `override.mimeType` names the type of content the
 * detector cannot recognise and refines a plain file's type (a ZIP-based format, say). Neither
 * ever changes a photo's or a video's kind or type: the Happy app decodes those by their bytes, so
 * their type must match the bytes.
 */
export async function detectKind(
  input: Uint8Array | { readonly path: string },
  override: DetectOverride = {},
): Promise<DetectedKind> {
  const { fileTypeFromBuffer, fileTypeFromFile } = await loadFileType();
  let detected: { mime: string; ext: string } | undefined;
  if (input instanceof Uint8Array) {
    detected = (await fileTypeFromBuffer(input)) ?? photoBySignature(input);
  } else {
    try {
      detected = (await fileTypeFromFile(input.path)) ?? photoBySignature(await fileHead(input.path));
    } catch (cause) {
      throw unreadablePath(input.path, cause);
    }
  }
  if (detected === undefined) return { kind: 'file', mimeType: await typeOfUnrecognised(input, override) };
  const { mime, ext } = detected;
  if (PHOTO_MIME_TYPES.has(mime)) return { kind: 'photo', mimeType: mime, ext };
  if (mime.startsWith('video/')) return { kind: 'video', mimeType: mime, ext };
  return { kind: 'file', mimeType: override.mimeType ?? mime, ext };
}
