import nacl from 'tweetnacl';
import { describe, expect, it } from 'vitest';
import { decodeBase64, deriveAccountKeys, encodeBase64 } from 'happy-session/crypto';
import { analyticsId, authChallengeBody, signChallenge, verifyChallenge } from 'happy-session/internal';
import { isSdkError } from 'happy-session';
import { flipBit, hex, toHex, vectors } from './fixtures.js';

const account = vectors.account;
const master = hex(account.masterSecretHex);

describe('account keys (docs/wire.md §1.1)', () => {
  const keys = deriveAccountKeys(master);

  it('derives the Ed25519 auth public key from the master secret as seed', () => {
    expect(encodeBase64(keys.auth.publicKey)).toBe(account.authPublicKeyBase64);
    expect(keys.auth.secretKey).toHaveLength(64);
  });

  it('derives the content box key pair as SHA-512(seed)[0..32] and its X25519 public key', () => {
    expect(toHex(keys.content.secretKey)).toBe(account.contentBoxSecretKeyHex);
    expect(encodeBase64(keys.content.publicKey)).toBe(account.contentBoxPublicKeyBase64);
  });

  it('derives the master blob key and keeps the master secret', () => {
    expect(toHex(keys.masterBlobKey)).toBe(account.masterBlobKeyHex);
    expect(keys.masterSecret).toEqual(master);
  });

  it('derives the anonymous analytics id', () => {
    expect(analyticsId(master)).toBe(account.anonIdHex16);
  });

  it('rejects a master secret that is not 32 bytes with crypto.bad_key', () => {
    expect(() => deriveAccountKeys(master.subarray(0, 31))).toThrow(
      expect.objectContaining({ code: 'crypto.bad_key' }),
    );
    let thrown: unknown;
    try {
      analyticsId(new Uint8Array(33));
    } catch (error) {
      thrown = error;
    }
    expect(isSdkError(thrown, 'crypto.bad_key')).toBe(true);
  });
});

describe('POST /v1/auth challenge (docs/wire.md §1.2)', () => {
  const challenge = decodeBase64(account.authChallengeBase64);

  it('signs the fixed challenge to the vector signature', () => {
    const keys = deriveAccountKeys(master);
    expect(encodeBase64(signChallenge(keys.auth.secretKey, challenge))).toBe(account.authSignatureBase64);
  });

  it('builds exactly the vector request body', () => {
    expect(authChallengeBody(master, challenge)).toEqual(account.postV1AuthBody);
  });

  it('uses a fresh random 32-byte challenge by default, and the server accepts it', () => {
    const first = authChallengeBody(master);
    const second = authChallengeBody(master);
    expect(decodeBase64(first.challenge)).toHaveLength(32);
    expect(first.challenge).not.toBe(second.challenge);
    expect(first.publicKey).toBe(account.authPublicKeyBase64);
    expect(verifyChallenge(first)).toBe(true);
    expect(
      nacl.sign.detached.verify(
        decodeBase64(first.challenge),
        decodeBase64(first.signature),
        decodeBase64(first.publicKey),
      ),
    ).toBe(true);
  });

  it('verifies the vector body', () => {
    expect(verifyChallenge(account.postV1AuthBody)).toBe(true);
  });

  it('refuses a changed challenge, signature or public key', () => {
    const body = account.postV1AuthBody;
    const change = (b64: string) => encodeBase64(flipBit(decodeBase64(b64), 5));
    expect(verifyChallenge({ ...body, challenge: change(body.challenge) })).toBe(false);
    expect(verifyChallenge({ ...body, signature: change(body.signature) })).toBe(false);
    expect(verifyChallenge({ ...body, publicKey: change(body.publicKey) })).toBe(false);
    const other = authChallengeBody(new Uint8Array(32).fill(7), challenge);
    expect(verifyChallenge({ ...body, publicKey: other.publicKey })).toBe(false);
  });

  it.each([
    ['null', null],
    ['a string', 'body'],
    ['missing fields', { publicKey: account.authPublicKeyBase64 }],
    ['a number field', { ...account.postV1AuthBody, signature: 1 }],
    ['bad base64', { ...account.postV1AuthBody, publicKey: 'not base64!' }],
    ['a short public key', { ...account.postV1AuthBody, publicKey: encodeBase64(new Uint8Array(31)) }],
    ['a short signature', { ...account.postV1AuthBody, signature: encodeBase64(new Uint8Array(63)) }],
  ])('returns false, without throwing, for %s', (_name, body) => {
    expect(verifyChallenge(body)).toBe(false);
  });
});
