import { NACL_NONCE_LENGTH, NACL_TAG_LENGTH, nacl } from './nacl.js';
import { ok, type Result } from '../result.js';
import { cryptoFailure, type CryptoFailure } from './failure.js';
import { assertLength, hasLength, KEY_LENGTH } from './keyLength.js';
import { randomBytes } from './random.js';

/** XSalsa20 nonce length. */
export const SECRETBOX_NONCE_LENGTH = NACL_NONCE_LENGTH;
/** Poly1305 tag length; the smallest possible bundle is nonce + tag. */
export const SECRETBOX_OVERHEAD = SECRETBOX_NONCE_LENGTH + NACL_TAG_LENGTH;

/**
 * Seals `plain` with NaCl secretbox (XSalsa20-Poly1305): `nonce(24) || tag(16) || ciphertext`.
 * The layout of legacy records (§3.1) and of attachment blobs (§3.2). Pass `nonce` only to
 * reproduce test vectors; by default a fresh random one is used.
 *
 * @throws {SdkError} `crypto.bad_key` for a key other than 32 bytes or a nonce other than 24.
 * @see docs/wire.md §3.1, §3.2
 */
export function secretboxSeal(plain: Uint8Array, key: Uint8Array, nonce?: Uint8Array): Uint8Array {
  assertLength(key, KEY_LENGTH, 'secretbox key');
  const n = nonce ?? randomBytes(SECRETBOX_NONCE_LENGTH);
  assertLength(n, SECRETBOX_NONCE_LENGTH, 'secretbox nonce');
  const box = nacl().secretbox(plain, n, key);
  const bundle = new Uint8Array(n.length + box.length);
  bundle.set(n, 0);
  bundle.set(box, n.length);
  return bundle;
}

/**
 * Opens a `nonce(24) || box` bundle made by {@link secretboxSeal}. Never throws.
 *
 * @returns the plaintext, or `crypto.bad_key` / `crypto.too_short` / `crypto.auth_failed`.
 * @see docs/wire.md §3.1, §3.2
 */
export function secretboxOpen(bundle: Uint8Array, key: Uint8Array): Result<Uint8Array, CryptoFailure> {
  if (!hasLength(key, KEY_LENGTH)) {
    return cryptoFailure('crypto.bad_key', 'The secretbox key must be 32 bytes.');
  }
  if (!(bundle instanceof Uint8Array) || bundle.length < SECRETBOX_OVERHEAD) {
    return cryptoFailure(
      'crypto.too_short',
      `A secretbox bundle needs at least ${SECRETBOX_OVERHEAD} bytes (nonce and tag).`,
    );
  }
  const plain = nacl().secretbox.open(
    bundle.subarray(SECRETBOX_NONCE_LENGTH),
    bundle.subarray(0, SECRETBOX_NONCE_LENGTH),
    key,
  );
  if (plain === null) {
    return cryptoFailure(
      'crypto.auth_failed',
      'The secretbox bundle did not authenticate: wrong key, or the bytes were changed.',
    );
  }
  return ok(plain);
}
