import { decryptBlob } from 'happy-session/crypto';
import { SdkError } from 'happy-session';
import type { ViewerApi } from './api.js';
import type { ViewerErrorCode } from './errorCodes.js';

/** Refs to files left on the agent's machine: nothing to download (docs/protocol.md, "file"). */
export const MACHINE_FILE_PREFIX = 'machine-file://';

/**
 * Downloads and decrypts a session's attachments (docs/wire.md §8.2, §3.2) with the session's blob
 * key, once per ref.
 */
export class MediaLoader {
  private readonly cache = new Map<string, Promise<Uint8Array>>();

  constructor(
    private readonly api: ViewerApi,
    private readonly sessionId: string,
    private readonly blobKey: Uint8Array,
  ) {}

  /** The plaintext bytes of `ref`; rejects with an `SdkError` saying what went wrong. */
  bytes(ref: string): Promise<Uint8Array> {
    let pending = this.cache.get(ref);
    if (!pending) {
      pending = this.load(ref);
      pending.catch(() => this.cache.delete(ref)); // a failed download may be retried
      this.cache.set(ref, pending);
    }
    return pending;
  }

  private async load(ref: string): Promise<Uint8Array> {
    const encrypted = await this.api.downloadAttachment(this.sessionId, ref);
    const opened = decryptBlob(encrypted, this.blobKey);
    if (!opened.ok) {
      throw new SdkError<ViewerErrorCode>(
        'viewer.media_undecryptable',
        `The attachment does not decrypt: ${opened.error.message}`,
      );
    }
    return opened.value;
  }
}

/** The image type of decrypted bytes by their magic numbers (PNG, JPEG, GIF, WebP), else PNG. */
export function sniffImageType(bytes: Uint8Array): string {
  const starts = (...sig: number[]) => sig.every((b, i) => bytes[i] === b);
  if (starts(0x89, 0x50, 0x4e, 0x47)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (starts(0x52, 0x49, 0x46, 0x46) && bytes[8] === 0x57 && bytes[9] === 0x45) return 'image/webp';
  return 'image/png';
}
