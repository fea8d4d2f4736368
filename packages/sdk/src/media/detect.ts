import { loadFileType } from './libraries.js';

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

function photoBySignature(bytes: Uint8Array): { mime: string; ext: string } | undefined {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.byteLength, 16)).toString('latin1');
  return PHOTO_SIGNATURES.find((signature) => head.startsWith(signature.bytes, signature.at));
}

/** The type used for content nobody recognised, when the caller did not name one. */
export const UNKNOWN_MIME_TYPE = 'application/octet-stream';

/**
 * Decides from the bytes alone (magic numbers, via `file-type`; never a file name) whether content
 * is a photo, a video or a plain file.
 *
 * `override.mimeType` names the type of content the detector cannot recognise (text, JSON, SVG, ...)
 * and refines a plain file's type (a ZIP-based format, say). It never changes a photo's or a video's
 * kind or type: the Happy app decodes those by their bytes, so their type must match the bytes.
 */
export async function detectKind(
  bytes: Uint8Array,
  override: { mimeType?: string } = {},
): Promise<DetectedKind> {
  const { fileTypeFromBuffer } = await loadFileType();
  const detected = (await fileTypeFromBuffer(bytes)) ?? photoBySignature(bytes);
  if (detected === undefined) return { kind: 'file', mimeType: override.mimeType ?? UNKNOWN_MIME_TYPE };
  const { mime, ext } = detected;
  if (PHOTO_MIME_TYPES.has(mime)) return { kind: 'photo', mimeType: mime, ext };
  if (mime.startsWith('video/')) return { kind: 'video', mimeType: mime, ext };
  return { kind: 'file', mimeType: override.mimeType ?? mime, ext };
}
