import { randomUUID } from 'node:crypto';
import { sealedBlobBytes } from '../crypto/sealedBlob.js';
import type { SealedBlob } from '../crypto/sealedBlob.js';
import { DEFAULT_UPLOAD_CHUNK_BYTES } from './limits.js';
import { MAX_ENCRYPTED_ATTACHMENT_BYTES } from './limits.js';
import { abortedError, mediaError } from './mediaError.js';
import type { DownloadOptions, MediaUploader, UploadOptions, UploadResult } from './uploader.js';

/** Options of a {@link MemoryUploader}. */
export interface MemoryUploaderOptions {
  /** Refs look like the server's, `sessions/<sessionId>/attachments/<uuid>.enc`; default `memory`. */
  readonly sessionId?: string;
  /** Steps progress is reported in; default 64 KiB, as the Happy uploader. */
  readonly chunkSize?: number;
}

/**
 * Keeps encrypted blobs in a `Map`, for sessions over `MemoryTransport` and for tests. It applies
 * the server's 10 MiB limit and hands out refs of the server's shape, so code that works against
 * it works against a Happy server.
 */
export class MemoryUploader implements MediaUploader {
  private readonly store = new Map<string, Uint8Array>();
  private readonly sessionId: string;
  private readonly chunkSize: number;

  constructor(options: MemoryUploaderOptions = {}) {
    this.sessionId = options.sessionId ?? 'memory';
    this.chunkSize = Math.max(1, options.chunkSize ?? DEFAULT_UPLOAD_CHUNK_BYTES);
  }

  /** Every stored blob by ref (ciphertext only), in upload order. */
  get blobs(): ReadonlyMap<string, Uint8Array> {
    return this.store;
  }

  /** Stores a copy of `encrypted`. Errors: `media.too_large`, `media.aborted`. */
  async upload(encrypted: Uint8Array, options: UploadOptions): Promise<UploadResult> {
    if (options.signal?.aborted) throw abortedError(options.signal);
    if (encrypted.length > MAX_ENCRYPTED_ATTACHMENT_BYTES) {
      throw mediaError(
        'media.too_large',
        `The encrypted attachment is ${encrypted.length} bytes; at most ${MAX_ENCRYPTED_ATTACHMENT_BYTES} are stored`,
        'Compress or downscale it, or split it into smaller files',
        { details: { size: encrypted.length, maxBytes: MAX_ENCRYPTED_ATTACHMENT_BYTES } },
      );
    }
    const total = encrypted.length;
    options.onProgress?.(0, total);
    for (let sent = 0; sent < total;) {
      sent = Math.min(total, sent + this.chunkSize);
      options.onProgress?.(sent, total);
    }
    const ref = `sessions/${this.sessionId}/attachments/${randomUUID()}.enc`;
    this.store.set(ref, Uint8Array.from(encrypted));
    return { ref };
  }

  /** Stores the bytes of a blob sealed piece by piece; the same checks as {@link MemoryUploader.upload}. */
  async uploadSealed(blob: SealedBlob, options: UploadOptions): Promise<UploadResult> {
    if (options.signal?.aborted) throw abortedError(options.signal);
    return this.upload(await sealedBlobBytes(blob), options);
  }

  /** A copy of the blob under `ref`. Errors: `media.download_failed` (no such blob), `media.aborted`. */
  async download(ref: string, options: DownloadOptions = {}): Promise<Uint8Array> {
    if (options.signal?.aborted) throw abortedError(options.signal);
    const blob = this.store.get(ref);
    if (blob === undefined) {
      throw mediaError(
        'media.download_failed',
        `No attachment is stored under ${ref}`,
        'Download through the uploader that stored it; memory uploads last only as long as the process',
        { details: { ref, status: 404 } },
      );
    }
    return Uint8Array.from(blob);
  }
}
