import type { AesGcmCipher } from './aesGcmCipher.js';

const TAG_BITS = 128;

/**
 * Copies into a fresh ArrayBuffer-backed array: WebCrypto's `BufferSource` typing refuses views of
 * a possibly shared buffer, and the copy keeps the caller's buffer out of the platform's hands.
 */
function owned(bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  return copy;
}

interface ImportedKey {
  /** The bytes it was imported from, to notice a caller who changed the array since. */
  readonly bytes: Uint8Array;
  readonly key: Promise<CryptoKey>;
}

/**
 * Imported keys by the array they came from. A session seals every record with the same data
 * key, and importing it each time cost as much as the encryption itself (bench `write.throughput`).
 * Weak, so a dropped key array takes its CryptoKey with it.
 */
const imported = new WeakMap<Uint8Array, ImportedKey>();

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function importKey(key: Uint8Array): Promise<CryptoKey> {
  const cached = imported.get(key);
  if (cached && sameBytes(cached.bytes, key)) return cached.key;
  const bytes = owned(key);
  const entry: ImportedKey = {
    bytes,
    key: globalThis.crypto.subtle.importKey('raw', bytes, { name: 'AES-GCM' }, false, ['encrypt', 'decrypt']),
  };
  // A failed import is not kept: the next call tries again and reports its own error.
  entry.key.catch(() => {
    if (imported.get(key) === entry) imported.delete(key);
  });
  imported.set(key, entry);
  return entry.key;
}

/**
 * AES-256-GCM through the platform's WebCrypto (`crypto.subtle`): runs in browsers and Node, one
 * promise per call. The default {@link AesGcmCipher}.
 *
 * @see docs/crypto.md, "AES-GCM providers"
 */
export const webCryptoAesGcm: AesGcmCipher = {
  name: 'webcrypto',
  async seal(plain, key, nonce) {
    const sealed = await globalThis.crypto.subtle.encrypt(
      { name: 'AES-GCM', iv: owned(nonce), tagLength: TAG_BITS },
      await importKey(key),
      owned(plain),
    );
    return new Uint8Array(sealed);
  },
  async open(sealed, key, nonce) {
    try {
      const plain = await globalThis.crypto.subtle.decrypt(
        { name: 'AES-GCM', iv: owned(nonce), tagLength: TAG_BITS },
        await importKey(key),
        owned(sealed),
      );
      return new Uint8Array(plain);
    } catch {
      return undefined;
    }
  },
};
