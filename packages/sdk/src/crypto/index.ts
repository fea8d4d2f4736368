/**
 * The Happy-compatible crypto layer: key derivation, record and blob encryption, data-key
 * wrapping, auth challenges and pairing. Browser-safe (WebCrypto, tweetnacl, @noble/hashes; no
 * Node built-ins).
 *
 * @see docs/wire.md §1, §3, §10
 */
// Encoding, randomness and keys: the primitives everything below uses (docs/crypto.md).
export { encodeBase64, decodeBase64, encodeBase64Url, decodeBase64Url } from './base64.js';
export { randomBytes } from './random.js';
export { KEY_LENGTH, assertLength } from './keyLength.js';
export { deriveKey } from './deriveKey.js';

// Account keys and the auth challenge: what logs in to a Happy server.
export {
  deriveAccountKeys,
  signChallenge,
  authChallengeBody,
  verifyChallenge,
  analyticsId,
} from './accountKeys.js';
export type { AccountKeys, AuthChallengeBody, KeyPair } from './accountKeys.js';
export type { CryptoFailure } from './failure.js';

// Ciphers: secretbox and AES-GCM, and the AES-GCM provider records use.
export { secretboxSeal, secretboxOpen } from './secretbox.js';
export { aesGcmSeal, aesGcmOpen } from './aesGcm.js';
export type { AesGcmCipher } from './aesGcmCipher.js';
export { webCryptoAesGcm } from './webCryptoAesGcm.js';
export { useAesGcmCipher, aesGcmCipher } from './aesGcmProvider.js';

// Records, data keys and blobs: what a session's messages and attachments are sealed with.
export { encryptRecord, encryptRecordBase64, decryptRecord } from './records.js';
export type { EncryptionVariant, RecordKey } from './records.js';
export { generateDataKey, wrapDataKey, unwrapDataKey } from './dataKey.js';
export { masterBlobKey, sessionBlobKey, blobKeyFor, encryptBlob, decryptBlob } from './blob.js';
export { sealBlobStream, sealedBlobBytes } from './sealedBlob.js';
export type { SealedBlob, SealedBytes } from './sealedBlob.js';

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
