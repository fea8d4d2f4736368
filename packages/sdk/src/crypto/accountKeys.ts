import { sha512 } from '@noble/hashes/sha2.js';
import { SIGN_SECRET_KEY_LENGTH, SIGN_PUBLIC_KEY_LENGTH, SIGNATURE_LENGTH, nacl } from './nacl.js';
import { decodeBase64, encodeBase64 } from './base64.js';
import { masterBlobKey } from './blob.js';
import { deriveKey } from './deriveKey.js';
import { assertLength, KEY_LENGTH } from './keyLength.js';
import { randomBytes } from './random.js';

/** A public/secret key pair as raw bytes. */
export interface KeyPair {
  readonly publicKey: Uint8Array;
  readonly secretKey: Uint8Array;
}

/**
 * Everything derived from an account's master secret.
 *
 * @see docs/wire.md §1.1
 */
export interface AccountKeys {
  /** The 32-byte master secret itself; also the key of legacy records. */
  readonly masterSecret: Uint8Array;
  /** Ed25519 pair from the master secret as seed; the public key identifies the account. */
  readonly auth: KeyPair;
  /** X25519 pair that data keys are wrapped to; `publicKey` is what a dataKey CLI stores. */
  readonly content: KeyPair;
  /** Attachment key of legacy sessions. */
  readonly masterBlobKey: Uint8Array;
}

/** The JSON body of `POST /v1/auth`: base64 of the auth public key, the challenge and its signature. */
export interface AuthChallengeBody {
  readonly publicKey: string;
  readonly challenge: string;
  readonly signature: string;
}

function contentKeyPair(masterSecret: Uint8Array): KeyPair {
  const seed = deriveKey(masterSecret, 'Happy EnCoder', ['content']);
  // SHA-512 then truncate: what libsodium's crypto_box_seed_keypair does, so the app agrees.
  const secretKey = sha512(seed).slice(0, KEY_LENGTH);
  return { publicKey: nacl().box.keyPair.fromSecretKey(secretKey).publicKey, secretKey };
}

/**
 * Derives the account's auth pair, content pair and master blob key.
 *
 * @throws {SdkError} `crypto.bad_key` unless `masterSecret` is 32 bytes.
 * @see docs/wire.md §1.1
 */
export function deriveAccountKeys(masterSecret: Uint8Array): AccountKeys {
  assertLength(masterSecret, KEY_LENGTH, 'master secret');
  const auth = nacl().sign.keyPair.fromSeed(masterSecret);
  return {
    masterSecret,
    auth: { publicKey: auth.publicKey, secretKey: auth.secretKey },
    content: contentKeyPair(masterSecret),
    masterBlobKey: masterBlobKey(masterSecret),
  };
}

/**
 * Ed25519 detached signature (64 bytes) of `challenge` with the 64-byte auth secret key.
 *
 * @throws {SdkError} `crypto.bad_key` unless `authSecretKey` is 64 bytes.
 * @see docs/wire.md §1.2
 */
export function signChallenge(authSecretKey: Uint8Array, challenge: Uint8Array): Uint8Array {
  assertLength(authSecretKey, SIGN_SECRET_KEY_LENGTH, 'Ed25519 auth secret key');
  return nacl().sign.detached(challenge, authSecretKey);
}

/**
 * The body of `POST /v1/auth`, which mints a bearer token for anyone holding the master secret.
 * The server does not store challenges, so a fresh random one (the default) always works; pass one
 * only to reproduce test vectors.
 *
 * @throws {SdkError} `crypto.bad_key` unless `masterSecret` is 32 bytes.
 * @see docs/wire.md §1.2
 */
export function authChallengeBody(masterSecret: Uint8Array, challenge?: Uint8Array): AuthChallengeBody {
  assertLength(masterSecret, KEY_LENGTH, 'master secret');
  const auth = nacl().sign.keyPair.fromSeed(masterSecret);
  const c = challenge ?? randomBytes(KEY_LENGTH);
  return {
    publicKey: encodeBase64(auth.publicKey),
    challenge: encodeBase64(c),
    signature: encodeBase64(signChallenge(auth.secretKey, c)),
  };
}

/**
 * The server side of `POST /v1/auth` (for a relay): true only when `publicKey` is a 32-byte
 * Ed25519 key and `signature` a valid 64-byte signature of `challenge` by it. Never throws; any
 * malformed field, including bad base64, gives false.
 *
 * @see docs/wire.md §1.2
 */
export function verifyChallenge(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const { publicKey, challenge, signature } = body as Record<string, unknown>;
  if (typeof publicKey !== 'string' || typeof challenge !== 'string' || typeof signature !== 'string')
    return false;
  try {
    const pk = decodeBase64(publicKey);
    const sig = decodeBase64(signature);
    if (pk.length !== SIGN_PUBLIC_KEY_LENGTH || sig.length !== SIGNATURE_LENGTH) return false;
    return nacl().sign.detached.verify(decodeBase64(challenge), sig, pk);
  } catch {
    return false;
  }
}

/**
 * The app's anonymous analytics id: the first 16 hex characters of
 * `deriveKey(master, 'Happy Coder', ['analytics', 'id'])`. Not on the wire.
 *
 * @throws {SdkError} `crypto.bad_key` unless `masterSecret` is 32 bytes.
 * @see docs/wire.md §1.1
 */
export function analyticsId(masterSecret: Uint8Array): string {
  assertLength(masterSecret, KEY_LENGTH, 'master secret');
  const key = deriveKey(masterSecret, 'Happy Coder', ['analytics', 'id']);
  return Array.from(key.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join('');
}
