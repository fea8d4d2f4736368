import { ok, type Result } from '../result.js';
import { aesGcmCipher } from './aesGcmProvider.js';
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

/** A value now when the cipher is synchronous, a promise of it when it is not. */
export type MaybePromise<T> = T | Promise<T>;

function bundleOf(nonce: Uint8Array, sealed: Uint8Array): Uint8Array {
  const bundle = new Uint8Array(1 + nonce.length + sealed.length);
  bundle[0] = AES_GCM_VERSION;
  bundle.set(nonce, 1);
  bundle.set(sealed, 1 + nonce.length);
  return bundle;
}

/**
 * {@link aesGcmSeal} without the promise when the installed cipher is synchronous (Node): the
 * write path seals each record with it.
 *
 * @throws {SdkError} `crypto.bad_key` for a key other than 32 bytes or a nonce other than 12.
 */
export function aesGcmSealNow(
  plain: Uint8Array,
  key: Uint8Array,
  nonce?: Uint8Array,
): MaybePromise<Uint8Array> {
  assertLength(key, KEY_LENGTH, 'AES-256-GCM key');
  const n = nonce ?? randomBytes(AES_GCM_NONCE_LENGTH);
  assertLength(n, AES_GCM_NONCE_LENGTH, 'AES-GCM nonce');
  const sealed = aesGcmCipher().seal(plain, key, n);
  return sealed instanceof Uint8Array ? bundleOf(n, sealed) : sealed.then((s) => bundleOf(n, s));
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
  return aesGcmSealNow(plain, key, nonce);
}

function opened(plain: Uint8Array | undefined): Result<Uint8Array, CryptoFailure> {
  return plain
    ? ok(plain)
    : cryptoFailure(
        'crypto.auth_failed',
        'The dataKey bundle did not authenticate: wrong key, or the bytes were changed.',
      );
}

/**
 * {@link aesGcmOpen} without the promise when the installed cipher is synchronous (Node). Never
 * throws or rejects.
 */
export function aesGcmOpenNow(
  bundle: Uint8Array,
  key: Uint8Array,
): MaybePromise<Result<Uint8Array, CryptoFailure>> {
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
  const plain = aesGcmCipher().open(
    bundle.subarray(1 + AES_GCM_NONCE_LENGTH),
    key,
    bundle.subarray(1, 1 + AES_GCM_NONCE_LENGTH),
  );
  return plain instanceof Promise ? plain.then(opened) : opened(plain);
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
  return aesGcmOpenNow(bundle, key);
}
