import { SdkError } from '../errors.js';
import { ok, type Result } from '../result.js';
import { aesGcmOpenNow, aesGcmSealNow, type MaybePromise } from './aesGcm.js';
import { encodeBase64 } from './base64.js';
import { bytesFromInput } from './bytesInput.js';
import { cryptoFailure, type CryptoFailure } from './failure.js';
import { secretboxOpen, secretboxSeal } from './secretbox.js';

/**
 * How a record is encrypted: `legacy` is NaCl secretbox under the master secret, `dataKey` is
 * AES-256-GCM under the record's own data key. A record with a non-null `dataEncryptionKey` is
 * dataKey, otherwise legacy.
 *
 * @see docs/wire.md §3.1
 */
export type EncryptionVariant = 'legacy' | 'dataKey';

/** The key of a session's (or machine's, or artifact's) records, with the variant it belongs to. */
export interface RecordKey {
  readonly variant: EncryptionVariant;
  /** 32 bytes: the master secret (legacy) or the unwrapped data key (dataKey). */
  readonly key: Uint8Array;
}

const utf8Encoder = new TextEncoder();
// fatal: invalid UTF-8 is a failure, not U+FFFD; ignoreBOM: a BOM is not JSON.stringify output.
const utf8Decoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function serialize(value: unknown): Uint8Array {
  let json: string | undefined;
  try {
    json = JSON.stringify(value);
  } catch (cause) {
    throw new SdkError(
      'crypto.invalid_json',
      'The value cannot be encrypted because JSON.stringify fails on it.',
      {
        hint: 'remove BigInt values and circular references',
        cause,
      },
    );
  }
  // JSON.stringify(undefined) is undefined; the CLI then encrypts empty plaintext (docs/wire.md §7.1).
  return utf8Encoder.encode(json ?? '');
}

/**
 * {@link encryptRecord} without the promise when the installed AES-GCM cipher is synchronous (Node)
 * or the variant is legacy: the write path seals each record with it.
 *
 * @throws {SdkError} as {@link encryptRecord}, synchronously.
 */
export function encryptRecordNow(
  value: unknown,
  key: RecordKey,
  options: { nonce?: Uint8Array } = {},
): MaybePromise<Uint8Array> {
  return sealPlaintextNow(serialize(value), key, options);
}

/**
 * {@link sealPlaintext} without the promise when the installed AES-GCM cipher is synchronous
 * (Node) or the variant is legacy: the writer seals each record with it.
 *
 * @throws {SdkError} as {@link sealPlaintext}, synchronously.
 */
export function sealPlaintextNow(
  plain: Uint8Array,
  key: RecordKey,
  options: { nonce?: Uint8Array } = {},
): MaybePromise<Uint8Array> {
  switch (key.variant) {
    case 'legacy':
      return secretboxSeal(plain, key.key, options.nonce);
    case 'dataKey':
      return aesGcmSealNow(plain, key.key, options.nonce);
    default:
      throw new SdkError('crypto.bad_key', `Unknown encryption variant ${String(key.variant)}.`, {
        hint: "use 'legacy' or 'dataKey'",
      });
  }
}

/** {@link encryptRecordBase64} without the promise when the sealing is synchronous. */
export function encryptRecordBase64Now(
  value: unknown,
  key: RecordKey,
  options: { nonce?: Uint8Array } = {},
): MaybePromise<string> {
  const sealed = encryptRecordNow(value, key, options);
  return sealed instanceof Uint8Array ? encodeBase64(sealed) : sealed.then(encodeBase64);
}

/**
 * Encrypts a JSON value as a record: plaintext is `UTF-8(JSON.stringify(value))`, sealed with the
 * key's variant (secretbox `nonce24 || box`, or AES-GCM `0x00 || nonce12 || ct || tag16`).
 * `undefined` encrypts to empty plaintext, as the CLI does for an RPC result of `undefined`.
 * Used for metadata, agentState, message bodies, and RPC params and results. Pass `nonce` only to
 * reproduce test vectors.
 *
 * @throws {SdkError} `crypto.invalid_json` if the value cannot be stringified; `crypto.bad_key`
 *   for a wrong-sized key or nonce or an unknown variant.
 * @see docs/wire.md §3.1, §7.1
 */
export async function encryptRecord(
  value: unknown,
  key: RecordKey,
  options: { nonce?: Uint8Array } = {},
): Promise<Uint8Array> {
  return encryptRecordNow(value, key, options);
}

/**
 * Seals plaintext that is already `UTF-8(JSON.stringify(value))` (a writer that measured it first
 * encrypts it without serialising it again); see {@link encryptRecord}.
 *
 * @throws {SdkError} `crypto.bad_key` for a wrong-sized key or nonce or an unknown variant.
 * @see docs/wire.md §3.1
 */
export async function sealPlaintext(
  plain: Uint8Array,
  key: RecordKey,
  options: { nonce?: Uint8Array } = {},
): Promise<Uint8Array> {
  return sealPlaintextNow(plain, key, options);
}

/**
 * Bytes of the sealed record for `plainBytes` of plaintext: secretbox adds a 24-byte nonce and a
 * 16-byte tag, AES-GCM a version byte, a 12-byte nonce and a 16-byte tag (docs/wire.md §3.1).
 */
export function sealedLength(plainBytes: number, variant: EncryptionVariant): number {
  return plainBytes + (variant === 'legacy' ? 40 : 29);
}

/**
 * {@link encryptRecord}, then standard base64: the string that goes in a JSON field on the wire.
 *
 * @see docs/wire.md §3.1
 */
export async function encryptRecordBase64(
  value: unknown,
  key: RecordKey,
  options: { nonce?: Uint8Array } = {},
): Promise<string> {
  return encryptRecordBase64Now(value, key, options);
}

/**
 * Decrypts a record (bytes, or the base64 from the wire) and parses its JSON. Never rejects and
 * never returns a half-decoded value: any failure is a typed `{ ok: false }`. Empty plaintext, which
 * the CLI sends for an `undefined` RPC result, reads as `null`, as in the app.
 *
 * @returns the value, or `crypto.invalid_base64` / `crypto.too_short` / `crypto.bad_version` /
 *   `crypto.auth_failed` / `crypto.invalid_utf8` / `crypto.invalid_json` / `crypto.bad_key`.
 * @see docs/wire.md §3.1, §7.1
 */
export async function decryptRecord(
  bundle: Uint8Array | string,
  key: RecordKey,
): Promise<Result<unknown, CryptoFailure>> {
  return decryptRecordNow(bundle, key);
}

/**
 * {@link decryptRecord} without the promise when the installed AES-GCM cipher is synchronous
 * (Node) or the variant is legacy: the read path opens each record with it. Never throws.
 */
export function decryptRecordNow(
  bundle: Uint8Array | string,
  key: RecordKey,
): MaybePromise<Result<unknown, CryptoFailure>> {
  const bytes = bytesFromInput(bundle);
  if (!bytes.ok) return bytes;
  switch (key?.variant) {
    case 'legacy':
      return andParse(secretboxOpen(bytes.value, key.key));
    case 'dataKey': {
      const opened = aesGcmOpenNow(bytes.value, key.key);
      return opened instanceof Promise ? opened.then(andParse) : andParse(opened);
    }
    default:
      return cryptoFailure('crypto.bad_key', `Unknown encryption variant ${String(key?.variant)}.`);
  }
}

function andParse(opened: Result<Uint8Array, CryptoFailure>): Result<unknown, CryptoFailure> {
  return opened.ok ? parsePlaintext(opened.value) : opened;
}

function parsePlaintext(plain: Uint8Array): Result<unknown, CryptoFailure> {
  if (plain.length === 0) return ok(null);
  let text: string;
  try {
    text = utf8Decoder.decode(plain);
  } catch {
    return cryptoFailure(
      'crypto.invalid_utf8',
      'The record decrypted, but its plaintext is not valid UTF-8.',
    );
  }
  try {
    return ok(JSON.parse(text) as unknown);
  } catch {
    return cryptoFailure('crypto.invalid_json', 'The record decrypted, but its plaintext is not JSON.');
  }
}
