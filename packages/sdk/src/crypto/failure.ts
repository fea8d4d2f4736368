import type { CryptoErrorCode } from '../errorCodes.js';
import { err } from '../result.js';

/**
 * Why a record, bundle or encoded value could not be opened. The codes double as {@link SdkError}
 * codes where a crypto input is rejected by throwing (bad local arguments only).
 *
 * - `crypto.invalid_base64`: the text is not base64 in either alphabet (docs/wire.md §3.4).
 * - `crypto.too_short`: fewer bytes than the format's fixed overhead (§3.1-§3.3).
 * - `crypto.bad_version`: a version/format byte other than the one the format allows (§3.1, §3.3, §1.3).
 * - `crypto.auth_failed`: the tag did not verify: wrong key, or the bytes were changed.
 * - `crypto.invalid_utf8`: the plaintext decrypted but is not UTF-8 (§3.1).
 * - `crypto.invalid_json`: the plaintext is UTF-8 but not JSON (§3.1).
 * - `crypto.bad_key`: a key of the wrong length or an unknown variant.
 *
 * @see docs/wire.md §3
 */
export type CryptoFailureCode = CryptoErrorCode;

/** A typed reason a crypto open/decode failed; returned inside a `Result`, never thrown. */
export interface CryptoFailure {
  readonly code: CryptoFailureCode;
  readonly message: string;
}

/** Builds the failing `Result` for `code`; internal shorthand for the open functions. */
export function cryptoFailure(code: CryptoFailureCode, message: string) {
  return err<CryptoFailure>({ code, message });
}
