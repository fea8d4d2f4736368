import { ok, type Result } from '../result.js';
import { ANONYMOUS_BOX_OVERHEAD, openAnonymousBox, sealAnonymousBox } from './box.js';
import { bytesFromInput } from './bytesInput.js';
import { cryptoFailure, type CryptoFailure } from './failure.js';
import { assertLength, KEY_LENGTH } from './keyLength.js';
import { randomBytes } from './random.js';

/** The only version byte of a wrapped data key. */
export const WRAPPED_DATA_KEY_VERSION = 0;
/** `0x00 || ephPk(32) || nonce(24) || box(32 + 16)`. */
export const WRAPPED_DATA_KEY_LENGTH = 1 + ANONYMOUS_BOX_OVERHEAD + KEY_LENGTH;

/**
 * A fresh random 32-byte AES-256-GCM key for one session (or machine, or artifact): the key of
 * every dataKey record of it.
 *
 * @see docs/wire.md §3.3
 */
export function generateDataKey(): Uint8Array {
  return randomBytes(KEY_LENGTH);
}

/**
 * Wraps `sessionKey` for the account, giving the 105 bytes whose base64 is the session's
 * `dataEncryptionKey`: `0x00 || ephPk(32) || nonce(24) || box(48)`. The recipient must be the
 * account's content public key; wrap to anything else and the app silently hides the session.
 * The options pin the ephemeral key and nonce, for test vectors only.
 *
 * @throws {SdkError} `crypto.bad_key` for wrong-sized keys or nonce.
 * @see docs/wire.md §3.3
 */
export function wrapDataKey(
  sessionKey: Uint8Array,
  recipientContentPublicKey: Uint8Array,
  options: { ephemeralSecretKey?: Uint8Array; nonce?: Uint8Array } = {},
): Uint8Array {
  assertLength(sessionKey, KEY_LENGTH, 'data key');
  const box = sealAnonymousBox(sessionKey, recipientContentPublicKey, options);
  const wrapped = new Uint8Array(1 + box.length);
  wrapped[0] = WRAPPED_DATA_KEY_VERSION;
  wrapped.set(box, 1);
  return wrapped;
}

/**
 * Unwraps a `dataEncryptionKey` (bytes, or the base64 the server returns) with the account's
 * content secret key. Never throws.
 *
 * @returns the 32-byte data key, or `crypto.invalid_base64` / `crypto.too_short` /
 *   `crypto.bad_version` / `crypto.auth_failed` / `crypto.bad_key` (wrong secret key size, or a
 *   box that holds something other than 32 bytes).
 * @see docs/wire.md §3.3
 */
export function unwrapDataKey(
  wrapped: Uint8Array | string,
  contentSecretKey: Uint8Array,
): Result<Uint8Array, CryptoFailure> {
  const bytes = bytesFromInput(wrapped);
  if (!bytes.ok) return bytes;
  const raw = bytes.value;
  if (raw.length < WRAPPED_DATA_KEY_LENGTH) {
    return cryptoFailure(
      'crypto.too_short',
      `A wrapped data key is ${WRAPPED_DATA_KEY_LENGTH} bytes; got ${raw.length}.`,
    );
  }
  if (raw[0] !== WRAPPED_DATA_KEY_VERSION) {
    return cryptoFailure('crypto.bad_version', `Unknown wrapped data key version ${raw[0]}; only 0 exists.`);
  }
  const opened = openAnonymousBox(raw.subarray(1), contentSecretKey);
  if (!opened.ok) return opened;
  if (opened.value.length !== KEY_LENGTH) {
    return cryptoFailure(
      'crypto.bad_key',
      `The wrapped data key holds ${opened.value.length} bytes, not 32.`,
    );
  }
  return ok(opened.value);
}
