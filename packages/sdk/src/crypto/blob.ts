import type { Result } from '../result.js';
import { deriveKey } from './deriveKey.js';
import type { CryptoFailure } from './failure.js';
import { assertLength, KEY_LENGTH } from './keyLength.js';
import type { RecordKey } from './records.js';
import { secretboxOpen, secretboxSeal } from './secretbox.js';

/**
 * The attachment key of a legacy session: `deriveKey(master, 'Happy Blobs', ['master'])`.
 *
 * @throws {SdkError} `crypto.bad_key` unless `master` is 32 bytes.
 * @see docs/wire.md §1.1, §3.2
 */
export function masterBlobKey(master: Uint8Array): Uint8Array {
  assertLength(master, KEY_LENGTH, 'master secret');
  return deriveKey(master, 'Happy Blobs', ['master']);
}

/**
 * The attachment key of a dataKey session: `deriveKey(sessionDataKey, 'Happy Blobs', ['session'])`.
 *
 * @throws {SdkError} `crypto.bad_key` unless `sessionDataKey` is 32 bytes.
 * @see docs/wire.md §1.1, §3.2
 */
export function sessionBlobKey(sessionDataKey: Uint8Array): Uint8Array {
  assertLength(sessionDataKey, KEY_LENGTH, 'session data key');
  return deriveKey(sessionDataKey, 'Happy Blobs', ['session']);
}

/**
 * The attachment key that goes with a session's record key: the session blob key for a dataKey
 * session, the master blob key for a legacy one (whose record key is the master secret).
 *
 * @see docs/wire.md §3.2
 */
export function blobKeyFor(recordKey: RecordKey): Uint8Array {
  return recordKey.variant === 'dataKey' ? sessionBlobKey(recordKey.key) : masterBlobKey(recordKey.key);
}

/**
 * Encrypts raw attachment bytes: `nonce(24) || secretbox(bytes)`, no JSON and no version byte.
 * Pass `nonce` only to reproduce test vectors.
 *
 * @throws {SdkError} `crypto.bad_key` for a wrong-sized key or nonce.
 * @see docs/wire.md §3.2
 */
export function encryptBlob(
  bytes: Uint8Array,
  blobKey: Uint8Array,
  options: { nonce?: Uint8Array } = {},
): Uint8Array {
  return secretboxSeal(bytes, blobKey, options.nonce);
}

/**
 * Decrypts an attachment made by {@link encryptBlob}. Never throws.
 *
 * @see docs/wire.md §3.2
 */
export function decryptBlob(bundle: Uint8Array, blobKey: Uint8Array): Result<Uint8Array, CryptoFailure> {
  return secretboxOpen(bundle, blobKey);
}
