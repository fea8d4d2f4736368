import { describe, expect, it } from 'vitest';
import {
  decodeBase64,
  deriveAccountKeys,
  encodeBase64,
  generateDataKey,
  unwrapDataKey,
  wrapDataKey,
} from 'happy-session/crypto';
import { flipBit, hex, vectors } from './fixtures.js';

const v = vectors.dataEncryptionKey;
const account = deriveAccountKeys(hex(vectors.account.masterSecretHex));
const sessionKey = hex(v.sessionKeyHex);
const wrapped = decodeBase64(v.wrappedBase64);

describe('data-key wrapping (docs/wire.md §3.3)', () => {
  it('wraps the session key to the content public key as the 105-byte vector', () => {
    const recipient = decodeBase64(v.recipientContentPublicKeyBase64);
    expect(recipient).toEqual(account.content.publicKey);
    const result = wrapDataKey(sessionKey, recipient, {
      ephemeralSecretKey: hex(v.ephemeralSecretKeyHex),
      nonce: hex(v.nonceHex),
    });
    expect(result).toHaveLength(v.wrappedLength);
    expect(encodeBase64(result)).toBe(v.wrappedBase64);
    expect(result[0]).toBe(0);
    expect(encodeBase64(result.subarray(1, 33))).toBe(v.ephemeralPublicKeyBase64);
    expect(result.subarray(33, 57)).toEqual(hex(v.nonceHex));
  });

  it('unwraps the vector, from bytes or base64, with the content secret key', () => {
    expect(unwrapDataKey(v.wrappedBase64, account.content.secretKey)).toEqual({
      ok: true,
      value: sessionKey,
    });
    expect(unwrapDataKey(wrapped, account.content.secretKey)).toEqual({ ok: true, value: sessionKey });
  });

  it('generates random 32-byte keys that round-trip with random ephemeral keys', () => {
    const first = generateDataKey();
    const second = generateDataKey();
    expect(first).toHaveLength(32);
    expect(first).not.toEqual(second);
    const a = wrapDataKey(first, account.content.publicKey);
    const b = wrapDataKey(first, account.content.publicKey);
    expect(a.subarray(1, 57)).not.toEqual(b.subarray(1, 57));
    expect(unwrapDataKey(a, account.content.secretKey)).toEqual({ ok: true, value: first });
  });

  it('fails with crypto.bad_version when byte 0 is not 0', () => {
    expect(unwrapDataKey(flipBit(wrapped, 0), account.content.secretKey)).toMatchObject({
      ok: false,
      error: { code: 'crypto.bad_version' },
    });
  });

  it.each([
    ['ephemeral public key', 1],
    ['nonce', 40],
    ['box tag', 60],
    ['box ciphertext', 100],
  ])('fails with crypto.auth_failed when the %s is changed', (_region, index) => {
    expect(unwrapDataKey(flipBit(wrapped, index, 2), account.content.secretKey)).toMatchObject({
      ok: false,
      error: { code: 'crypto.auth_failed' },
    });
  });

  it('fails with crypto.too_short for every length below 105', () => {
    for (let length = 0; length < 105; length++) {
      expect(unwrapDataKey(wrapped.subarray(0, length), account.content.secretKey)).toMatchObject({
        error: { code: 'crypto.too_short' },
      });
    }
  });

  it('fails with crypto.auth_failed for another account, crypto.bad_key for a short secret key', () => {
    const other = deriveAccountKeys(new Uint8Array(32).fill(9));
    expect(unwrapDataKey(wrapped, other.content.secretKey)).toMatchObject({
      error: { code: 'crypto.auth_failed' },
    });
    expect(unwrapDataKey(wrapped, account.content.secretKey.subarray(1))).toMatchObject({
      error: { code: 'crypto.bad_key' },
    });
  });

  it('fails with crypto.invalid_base64 for text that is not base64', () => {
    expect(unwrapDataKey('%%%', account.content.secretKey)).toMatchObject({
      error: { code: 'crypto.invalid_base64' },
    });
  });

  it('refuses to wrap a key that is not 32 bytes', () => {
    expect(() => wrapDataKey(new Uint8Array(16), account.content.publicKey)).toThrow(
      expect.objectContaining({ code: 'crypto.bad_key' }),
    );
    expect(() => wrapDataKey(sessionKey, account.content.publicKey.subarray(1))).toThrow(
      expect.objectContaining({ code: 'crypto.bad_key' }),
    );
  });
});
