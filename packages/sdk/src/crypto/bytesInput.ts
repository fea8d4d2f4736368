import { isSdkError } from '../errors.js';
import { ok, type Result } from '../result.js';
import { decodeBase64 } from './base64.js';
import { cryptoFailure, type CryptoFailure } from './failure.js';

/**
 * Accepts wire input as raw bytes or as base64 text (the form it has in JSON), turning bad text
 * into a `crypto.invalid_base64` failure instead of an exception.
 */
export function bytesFromInput(input: Uint8Array | string): Result<Uint8Array, CryptoFailure> {
  if (input instanceof Uint8Array) return ok(input);
  try {
    return ok(decodeBase64(input));
  } catch (error) {
    if (isSdkError(error, 'crypto.invalid_base64'))
      return cryptoFailure('crypto.invalid_base64', error.message);
    return cryptoFailure('crypto.invalid_base64', 'Expected bytes or a base64 string.');
  }
}
