import { describe, expect, it } from 'vitest';
import { secretboxOpen, secretboxSeal } from 'happy-session/internal';
import { flipBit, hex, utf8, vectors } from './fixtures.js';

const key = hex(vectors.legacy.keyHex);
const nonce = hex(vectors.legacy.nonceHex);
const plain = utf8(vectors.legacy.plaintextJson);
const bundle = secretboxSeal(plain, key, nonce);

describe('secretbox bundles (docs/wire.md §3.1 legacy, §3.2)', () => {
  it('lays out nonce(24) || tag(16) || ciphertext', () => {
    expect(bundle).toHaveLength(24 + 16 + plain.length);
    expect(bundle.subarray(0, 24)).toEqual(nonce);
  });

  it('opens what it sealed, with a random nonce by default', () => {
    const a = secretboxSeal(plain, key);
    const b = secretboxSeal(plain, key);
    expect(a.subarray(0, 24)).not.toEqual(b.subarray(0, 24));
    expect(secretboxOpen(a, key)).toEqual({ ok: true, value: plain });
    expect(secretboxOpen(b, key)).toEqual({ ok: true, value: plain });
  });

  it.each([
    ['nonce', 0],
    ['nonce end', 23],
    ['tag', 24],
    ['tag end', 39],
    ['ciphertext', 40],
    ['last byte', bundle.length - 1],
  ])('fails with crypto.auth_failed when the %s is changed', (_region, index) => {
    const result = secretboxOpen(flipBit(bundle, index, 3), key);
    expect(result).toMatchObject({ ok: false, error: { code: 'crypto.auth_failed' } });
  });

  it('fails with crypto.too_short for every length below 40', () => {
    for (let length = 0; length < 40; length++) {
      expect(secretboxOpen(bundle.subarray(0, length), key)).toMatchObject({
        ok: false,
        error: { code: 'crypto.too_short' },
      });
    }
  });

  it('fails with crypto.auth_failed when cut in the middle, or at exactly nonce + tag', () => {
    expect(secretboxOpen(bundle.subarray(0, 60), key)).toMatchObject({
      error: { code: 'crypto.auth_failed' },
    });
    expect(secretboxOpen(bundle.subarray(0, 40), key)).toMatchObject({
      error: { code: 'crypto.auth_failed' },
    });
  });

  it('fails with crypto.auth_failed under another key, and crypto.bad_key for a short key', () => {
    expect(secretboxOpen(bundle, flipBit(key, 0))).toMatchObject({ error: { code: 'crypto.auth_failed' } });
    expect(secretboxOpen(bundle, key.subarray(0, 16))).toMatchObject({ error: { code: 'crypto.bad_key' } });
  });

  it('refuses to seal with a wrong-sized key or nonce', () => {
    expect(() => secretboxSeal(plain, key.subarray(1))).toThrow(
      expect.objectContaining({ code: 'crypto.bad_key' }),
    );
    expect(() => secretboxSeal(plain, key, nonce.subarray(1))).toThrow(
      expect.objectContaining({ code: 'crypto.bad_key' }),
    );
  });
});
