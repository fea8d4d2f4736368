import { nacl } from './nacl.js';
import { ok, type Result } from '../result.js';
import type { KeyPair } from './accountKeys.js';
import { encodeBase64Url } from './base64.js';
import { openAnonymousBox, sealAnonymousBox, type AnonymousBoxOptions } from './box.js';
import { bytesFromInput } from './bytesInput.js';
import { cryptoFailure, type CryptoFailure } from './failure.js';
import { assertLength, KEY_LENGTH } from './keyLength.js';
import { randomBytes } from './random.js';

/**
 * What an approved pairing request delivers: the master secret (legacy: terminal pairing V1 and
 * account linking) or the account's content public key (dataKey: terminal pairing V2).
 *
 * @see docs/wire.md §1.3, §1.4
 */
export type PairingResponse =
  | { readonly kind: 'legacy'; readonly secret: Uint8Array }
  | { readonly kind: 'dataKey'; readonly contentPublicKey: Uint8Array };

/** First byte of a V2 (dataKey) response plaintext. */
const V2_MARKER = 0x00;

/**
 * The one-time X25519 pair a terminal or linked device pairs with; random unless `secretKey` is
 * given (test vectors, or resuming a pending request).
 *
 * @throws {SdkError} `crypto.bad_key` unless `secretKey` is 32 bytes.
 * @see docs/wire.md §1.3
 */
export function pairingKeyPair(secretKey?: Uint8Array): KeyPair {
  const sk = secretKey ?? randomBytes(KEY_LENGTH);
  assertLength(sk, KEY_LENGTH, 'pairing secret key');
  const pair = nacl().box.keyPair.fromSecretKey(sk);
  return { publicKey: pair.publicKey, secretKey: pair.secretKey };
}

/**
 * The mobile QR link for terminal pairing: `happy://terminal?<b64url(pk)>`.
 *
 * @see docs/wire.md §1.3, §3.4
 */
export function terminalQrUrl(publicKey: Uint8Array): string {
  assertLength(publicKey, KEY_LENGTH, 'pairing public key');
  return `happy://terminal?${encodeBase64Url(publicKey)}`;
}

/**
 * The browser link for terminal pairing: `<webappUrl>/terminal/connect#key=<b64url(pk)>`.
 *
 * @see docs/wire.md §1.3
 */
export function terminalWebUrl(webappUrl: string, publicKey: Uint8Array): string {
  assertLength(publicKey, KEY_LENGTH, 'pairing public key');
  return `${webappUrl.replace(/\/+$/, '')}/terminal/connect#key=${encodeBase64Url(publicKey)}`;
}

/**
 * The QR link for account linking: `happy:///account?<b64url(pk)>`, with three slashes.
 *
 * @see docs/wire.md §1.4
 */
export function accountQrUrl(publicKey: Uint8Array): string {
  assertLength(publicKey, KEY_LENGTH, 'pairing public key');
  return `happy:///account?${encodeBase64Url(publicKey)}`;
}

/**
 * What the app does on approval: box `plaintext` (the 32-byte master secret, or
 * `0x00 || contentPublicKey`) to the requester's pairing key, as `ephPk(32) || nonce(24) || box`
 * with no version byte. Here for the relay and for tests; the options pin the random parts.
 *
 * @throws {SdkError} `crypto.bad_key` for wrong-sized keys or nonce.
 * @see docs/wire.md §1.3 step 4, §1.4 step 3
 */
export function sealPairingResponse(
  plaintext: Uint8Array,
  recipientPublicKey: Uint8Array,
  options: AnonymousBoxOptions = {},
): Uint8Array {
  return sealAnonymousBox(plaintext, recipientPublicKey, options);
}

/**
 * Opens the `response` of an authorized pairing request with the pairing secret key and tells the
 * two credential kinds apart: 32 bytes is a master secret; 33 bytes starting `0x00` is a content
 * public key. Never throws.
 *
 * @returns the credentials, or `crypto.invalid_base64` / `crypto.too_short` /
 *   `crypto.auth_failed` / `crypto.bad_version` (a plaintext of neither shape) / `crypto.bad_key`.
 * @see docs/wire.md §1.3 step 5, §1.4 step 4
 */
export function openPairingResponse(
  bundle: Uint8Array | string,
  secretKey: Uint8Array,
): Result<PairingResponse, CryptoFailure> {
  const bytes = bytesFromInput(bundle);
  if (!bytes.ok) return bytes;
  const opened = openAnonymousBox(bytes.value, secretKey);
  if (!opened.ok) return opened;
  const plain = opened.value;
  if (plain.length === KEY_LENGTH) return ok({ kind: 'legacy', secret: plain });
  if (plain.length === 1 + KEY_LENGTH && plain[0] === V2_MARKER) {
    return ok({ kind: 'dataKey', contentPublicKey: plain.slice(1) });
  }
  return cryptoFailure(
    'crypto.bad_version',
    `The pairing response holds ${plain.length} bytes of an unknown format (expected 32, or 33 starting with 0x00).`,
  );
}
