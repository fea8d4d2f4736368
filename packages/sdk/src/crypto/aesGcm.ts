import { ok, type Result } from '../result.js';
import { cryptoFailure, type CryptoFailure } from './failure.js';
import { assertLength, hasLength, KEY_LENGTH } from './keyLength.js';
import { randomBytes } from './random.js';

/** The only version byte the dataKey record format defines. */
export const AES_GCM_VERSION = 0;
/** GCM nonce length used by Happy. */
export const AES_GCM_NONCE_LENGTH = 12;
const TAG_LENGTH = 16;
/** Version byte + nonce + tag: the length of a bundle with empty plaintext, and the minimum. */
export const AES_GCM_MIN_LENGTH = 1 + AES_GCM_NONCE_LENGTH + TAG_LENGTH;

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
 * Seals `plain` with AES-256-GCM (no AAD) in Happy's dataKey layout:
 * `0x00 || nonce(12) || ciphertext || tag(16)`. Pass `nonce` only to reproduce test vectors.
 *
 * @throws {SdkError} `crypto.bad_key` for a key other than 32 bytes or a nonce other than 12.
 * @see docs/wire.md §3.1
 */
export async function aesGcmSeal(
  plain: Uint8Array,
  key: Uint8Array,
  nonce?: Uint8Array,
): Promise<Uint8Array> {
  assertLength(key, KEY_LENGTH, 'AES-256-GCM key');
  const n = nonce ?? randomBytes(AES_GCM_NONCE_LENGTH);
  assertLength(n, AES_GCM_NONCE_LENGTH, 'AES-GCM nonce');
  const sealed = await globalThis.crypto.subtle.encrypt(
    { name: 'AES-GCM', iv: owned(n), tagLength: TAG_LENGTH * 8 },
    await importKey(key),
    owned(plain),
  );
  const bundle = new Uint8Array(1 + n.length + sealed.byteLength);
  bundle[0] = AES_GCM_VERSION;
  bundle.set(n, 1);
  bundle.set(new Uint8Array(sealed), 1 + n.length);
  return bundle;
}

/**
 * Opens a dataKey bundle made by {@link aesGcmSeal}. Never rejects.
 *
 * @returns the plaintext, or `crypto.bad_key` / `crypto.too_short` (under 29 bytes) /
 *   `crypto.bad_version` (first byte not 0) / `crypto.auth_failed` (tag mismatch).
 * @see docs/wire.md §3.1
 */
export async function aesGcmOpen(
  bundle: Uint8Array,
  key: Uint8Array,
): Promise<Result<Uint8Array, CryptoFailure>> {
  if (!hasLength(key, KEY_LENGTH)) {
    return cryptoFailure('crypto.bad_key', 'The AES-256-GCM key must be 32 bytes.');
  }
  if (!(bundle instanceof Uint8Array) || bundle.length < AES_GCM_MIN_LENGTH) {
    return cryptoFailure(
      'crypto.too_short',
      `A dataKey bundle needs at least ${AES_GCM_MIN_LENGTH} bytes (version, nonce and tag).`,
    );
  }
  if (bundle[0] !== AES_GCM_VERSION) {
    return cryptoFailure(
      'crypto.bad_version',
      `Unknown dataKey bundle version ${bundle[0]}; only version 0 exists. Was it sealed with secretbox (legacy)?`,
    );
  }
  let plain: ArrayBuffer;
  try {
    plain = await globalThis.crypto.subtle.decrypt(
      { name: 'AES-GCM', iv: owned(bundle.subarray(1, 1 + AES_GCM_NONCE_LENGTH)), tagLength: TAG_LENGTH * 8 },
      await importKey(key),
      owned(bundle.subarray(1 + AES_GCM_NONCE_LENGTH)),
    );
  } catch {
    return cryptoFailure(
      'crypto.auth_failed',
      'The dataKey bundle did not authenticate: wrong key, or the bytes were changed.',
    );
  }
  return ok(new Uint8Array(plain));
}
