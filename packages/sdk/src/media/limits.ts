import { MAX_ATTACHMENT_BYTES } from '../wire/attachments.js';

/**
 * Size limits of attachments (docs/wire.md §8.1, §3.2).
 *
 * The server refuses an upload whose **encrypted** size exceeds 10 MiB, and encryption adds a 24-byte
 * nonce and a 16-byte Poly1305 tag, so the plaintext may be at most 40 bytes short of the limit.
 */
export const MAX_ENCRYPTED_ATTACHMENT_BYTES = MAX_ATTACHMENT_BYTES;

/** Bytes a blob gains when encrypted: `nonce(24) || secretbox(...)` whose tag is 16 bytes (§3.2). */
export const BLOB_OVERHEAD_BYTES = 40;

/** The largest plaintext that still uploads: {@link MAX_ENCRYPTED_ATTACHMENT_BYTES} minus the blob overhead. */
export const DEFAULT_MAX_MEDIA_BYTES = MAX_ENCRYPTED_ATTACHMENT_BYTES - BLOB_OVERHEAD_BYTES;

/**
 * The most pixels an image may have before it is decoded (sharp's own default), checked from the
 * header so a small file that inflates to gigabytes (a "decompression bomb") is refused cheaply.
 */
export const MAX_IMAGE_PIXELS = 16_383 * 16_383;

/** The longest side, in pixels, of the image a thumbhash is computed from (docs/wire.md §8.3). */
export const THUMBHASH_MAX_SIDE = 100;

/** The longest side, in pixels, of a video's poster frame: enough for a preview, small enough to encode fast. */
export const POSTER_MAX_SIDE = 480;

/** Size of the pieces an upload body is handed to the network in; progress moves in these steps. */
export const DEFAULT_UPLOAD_CHUNK_BYTES = 64 * 1024;

/**
 * The largest photo or video `fit: 'auto'` reads into memory to re-encode (docs/media.md, "Fitting
 * the server's limit"): a phone video of several minutes, not a whole film.
 */
export const MAX_FIT_INPUT_BYTES = 512 * 1024 * 1024;
