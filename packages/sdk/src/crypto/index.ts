/**
 * The Happy-compatible crypto layer: account keys, record and blob encryption, data-key wrapping,
 * the AES-GCM provider records use, and pairing. Browser-safe (WebCrypto, tweetnacl,
 * @noble/hashes; no Node built-ins). The primitives under them (secretbox, AES-GCM, key
 * derivation, the auth challenge) are the SDK's own and not exported.
 *
 * @see docs/wire.md §1, §3, §10
 */
// Encoding and account keys: what a session's keys are written in and derived from (docs/crypto.md).
export { encodeBase64, decodeBase64 } from './base64.js';
export { deriveAccountKeys } from './accountKeys.js';
export type { AccountKeys, KeyPair } from './accountKeys.js';
export type { CryptoFailure } from './failure.js';

// The AES-GCM provider records use: the WebCrypto one, or a program's own.
export type { AesGcmCipher } from './aesGcmCipher.js';
export { webCryptoAesGcm } from './webCryptoAesGcm.js';
export { useAesGcmCipher } from './aesGcmProvider.js';

// Records, data keys and blobs: what a session's messages and attachments are sealed with.
export { encryptRecord, decryptRecord } from './records.js';
export type { EncryptionVariant, RecordKey } from './records.js';
export { generateDataKey, wrapDataKey, unwrapDataKey } from './dataKey.js';
export { blobKeyFor, encryptBlob, decryptBlob } from './blob.js';

// Pairing: the QR links and the sealed answer that link a device to an account.
export {
  pairingKeyPair,
  terminalQrUrl,
  terminalWebUrl,
  accountQrUrl,
  sealPairingResponse,
  openPairingResponse,
} from './pairing.js';
export type { PairingResponse } from './pairing.js';
export type { CryptoErrorCode } from '../errorCodes.js';
