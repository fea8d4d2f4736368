import { NACL_NONCE_LENGTH, NACL_TAG_LENGTH, nacl } from './nacl.js';
import { ok, type Result } from '../result.js';
import { cryptoFailure, type CryptoFailure } from './failure.js';
import { assertLength, hasLength, KEY_LENGTH } from './keyLength.js';
import { randomBytes } from './random.js';

/** NaCl box nonce length. */
export const BOX_NONCE_LENGTH = NACL_NONCE_LENGTH;
/** `ephPk(32) || nonce(24) || tag(16)`: the smallest anonymous box bundle. */
export const ANONYMOUS_BOX_OVERHEAD = KEY_LENGTH + BOX_NONCE_LENGTH + NACL_TAG_LENGTH;

/** Options that pin the random parts of an anonymous box, for test vectors only. */
export interface AnonymousBoxOptions {
  /** The sender's one-time X25519 secret key; random by default. */
  readonly ephemeralSecretKey?: Uint8Array;
  /** The 24-byte box nonce; random by default. */
  readonly nonce?: Uint8Array;
}

/**
 * NaCl `box` from a fresh one-time sender key to `recipientPublicKey`, laid out as
 * `ephPk(32) || nonce(24) || box`. The shared core of data-key wrapping (which prefixes a version
 * byte) and pairing responses (which do not).
 *
 * @throws {SdkError} `crypto.bad_key` for wrong-sized keys or nonce.
 * @see docs/wire.md §3.3, §1.3
 */
export function sealAnonymousBox(
  plain: Uint8Array,
  recipientPublicKey: Uint8Array,
  options: AnonymousBoxOptions = {},
): Uint8Array {
  assertLength(recipientPublicKey, KEY_LENGTH, 'recipient public key');
  const ephemeralSecretKey = options.ephemeralSecretKey ?? randomBytes(KEY_LENGTH);
  assertLength(ephemeralSecretKey, KEY_LENGTH, 'ephemeral secret key');
  const nonce = options.nonce ?? randomBytes(BOX_NONCE_LENGTH);
  assertLength(nonce, BOX_NONCE_LENGTH, 'box nonce');
  const ephemeral = nacl().box.keyPair.fromSecretKey(ephemeralSecretKey);
  const box = nacl().box(plain, nonce, recipientPublicKey, ephemeral.secretKey);
  const bundle = new Uint8Array(KEY_LENGTH + BOX_NONCE_LENGTH + box.length);
  bundle.set(ephemeral.publicKey, 0);
  bundle.set(nonce, KEY_LENGTH);
  bundle.set(box, KEY_LENGTH + BOX_NONCE_LENGTH);
  return bundle;
}

/**
 * Opens an `ephPk(32) || nonce(24) || box` bundle with the recipient's X25519 secret key. Never
 * throws.
 *
 * @returns the plaintext, or `crypto.bad_key` / `crypto.too_short` / `crypto.auth_failed`.
 */
export function openAnonymousBox(
  bundle: Uint8Array,
  secretKey: Uint8Array,
): Result<Uint8Array, CryptoFailure> {
  if (!hasLength(secretKey, KEY_LENGTH)) {
    return cryptoFailure('crypto.bad_key', 'The X25519 secret key must be 32 bytes.');
  }
  if (!(bundle instanceof Uint8Array) || bundle.length < ANONYMOUS_BOX_OVERHEAD) {
    return cryptoFailure(
      'crypto.too_short',
      `A box bundle needs at least ${ANONYMOUS_BOX_OVERHEAD} bytes (sender key, nonce and tag).`,
    );
  }
  const plain = nacl().box.open(
    bundle.subarray(KEY_LENGTH + BOX_NONCE_LENGTH),
    bundle.subarray(KEY_LENGTH, KEY_LENGTH + BOX_NONCE_LENGTH),
    bundle.subarray(0, KEY_LENGTH),
    secretKey,
  );
  if (plain === null) {
    return cryptoFailure(
      'crypto.auth_failed',
      'The box did not open: it was sealed to another public key, or the bytes were changed.',
    );
  }
  return ok(plain);
}
