import { SdkError } from '../errors.js';

/** Every symmetric and X25519/Ed25519 seed key in the Happy formats is 32 bytes (docs/wire.md §1.1). */
export const KEY_LENGTH = 32;

/**
 * Throws `crypto.bad_key` unless `bytes` is a Uint8Array of `length`. Only for local arguments to
 * seal/derive functions: a wrong-sized key there is a programming error, not outside input.
 */
export function assertLength(bytes: unknown, length: number, what: string): asserts bytes is Uint8Array {
  if (!(bytes instanceof Uint8Array) || bytes.length !== length) {
    const got = bytes instanceof Uint8Array ? `${bytes.length} bytes` : typeof bytes;
    throw new SdkError('crypto.bad_key', `The ${what} must be ${length} bytes, got ${got}.`, {
      hint: 'pass the raw key bytes (decode base64 first), not a string or a sliced buffer',
    });
  }
}

/** True when `bytes` is a Uint8Array of exactly `length`; the non-throwing twin for open paths. */
export function hasLength(bytes: unknown, length: number): bytes is Uint8Array {
  return bytes instanceof Uint8Array && bytes.length === length;
}
