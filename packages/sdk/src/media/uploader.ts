import type { SealedBlob } from '../crypto/sealedBlob.js';

/** Options of {@link MediaUploader.upload}. */
export interface UploadOptions {
  /** The display name; servers never use it for the storage path (docs/wire.md §8.1). */
  readonly filename: string;
  readonly signal?: AbortSignal;
  /**
   * Bytes of the encrypted blob handed to the network so far, and its length. A retried upload
   * starts again from 0.
   */
  readonly onProgress?: (sent: number, total: number) => void;
}

/** Options of {@link MediaUploader.download}. */
export interface DownloadOptions {
  readonly signal?: AbortSignal;
}

/** Where an uploaded blob can be found again: the `ref` a `photo` / `video` / `file` message carries. */
export interface UploadResult {
  readonly ref: string;
}

/**
 * Stores encrypted attachment blobs and fetches them back by `ref` (docs/wire.md §8.1, §8.2). It
 * never sees plaintext: the media pipeline encrypts before `upload` and decrypts after `download`.
 *
 * Implementations: `HappyUploader` (a Happy server or the relay), `MemoryUploader` (in process).
 */
export interface MediaUploader {
  /** Uploads `encrypted` and resolves with its `ref` once the store has it. */
  upload(encrypted: Uint8Array, options: UploadOptions): Promise<UploadResult>;
  /**
   * Uploads a blob that is encrypted piece by piece as it is sent (docs/media.md, "Memory"), so
   * the whole ciphertext never sits in memory. Optional: without it, the pipeline hands
   * {@link MediaUploader.upload} the blob's bytes.
   */
  uploadSealed?(blob: SealedBlob, options: UploadOptions): Promise<UploadResult>;
  /** The encrypted blob stored under `ref`. */
  download(ref: string, options?: DownloadOptions): Promise<Uint8Array>;
}
