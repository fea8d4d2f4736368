import { describe, expect, it } from 'vitest';
import { ciphers, usingCipher } from './ciphers.js';
import { aesGcmOpen, aesGcmSeal } from 'happy-session/internal';
import { flipBit, hex, toHex, utf8, vectors } from './fixtures.js';

const small = vectors.dataKeySmall;
const key = hex(small.keyHex);
const nonce = hex(small.nonceHex);
const plain = utf8(small.plaintextJson);

describe.each(ciphers)(
  'AES-256-GCM bundles (docs/wire.md §3.1 dataKey), with the %s cipher',
  (_name, cipher) => {
    usingCipher(cipher);
    it('seals {"a":1} to the vector bytes: version, nonce, 7 ciphertext bytes, tag', async () => {
      expect(toHex(await aesGcmSeal(plain, key, nonce))).toBe(small.bundleHex);
    });

    it('opens the vector bundle', async () => {
      expect(await aesGcmOpen(hex(small.bundleHex), key)).toEqual({ ok: true, value: plain });
    });

    it('seals empty plaintext to exactly the 29-byte minimum, and opens it', async () => {
      const empty = await aesGcmSeal(new Uint8Array(0), key);
      expect(empty).toHaveLength(29);
      expect(await aesGcmOpen(empty, key)).toEqual({ ok: true, value: new Uint8Array(0) });
    });

    it('uses a random nonce by default', async () => {
      const a = await aesGcmSeal(plain, key);
      const b = await aesGcmSeal(plain, key);
      expect(a[0]).toBe(0);
      expect(a.subarray(1, 13)).not.toEqual(b.subarray(1, 13));
    });

    it('seals with the bytes a key array holds now, even after the array was changed in place', async () => {
      const mutable = key.slice();
      await aesGcmSeal(plain, mutable, nonce);
      mutable[0] = mutable[0]! ^ 0xff;
      const sealed = await aesGcmSeal(plain, mutable, nonce);
      expect(toHex(sealed)).not.toBe(small.bundleHex);
      expect(await aesGcmOpen(sealed, mutable.slice())).toEqual({ ok: true, value: plain });
      expect(await aesGcmOpen(sealed, key)).toMatchObject({
        ok: false,
        error: { code: 'crypto.auth_failed' },
      });
    });

    const bundle = hex(small.bundleHex);

    it('fails with crypto.bad_version when the version byte is changed', async () => {
      for (const version of [1, 2, 0x80, 0xff]) {
        const changed = bundle.slice();
        changed[0] = version;
        expect(await aesGcmOpen(changed, key)).toMatchObject({
          ok: false,
          error: { code: 'crypto.bad_version' },
        });
      }
    });

    it.each([
      ['nonce', 1],
      ['nonce end', 12],
      ['ciphertext', 13],
      ['ciphertext end', 19],
      ['tag', 20],
      ['tag end', 35],
    ])('fails with crypto.auth_failed when the %s is changed', async (_region, index) => {
      expect(await aesGcmOpen(flipBit(bundle, index, 6), key)).toMatchObject({
        ok: false,
        error: { code: 'crypto.auth_failed' },
      });
    });

    it('fails with crypto.too_short for every length below 29', async () => {
      for (let length = 0; length < 29; length++) {
        expect(await aesGcmOpen(bundle.subarray(0, length), key)).toMatchObject({
          ok: false,
          error: { code: 'crypto.too_short' },
        });
      }
    });

    it('fails with crypto.auth_failed when cut in the middle', async () => {
      expect(await aesGcmOpen(bundle.subarray(0, 30), key)).toMatchObject({
        error: { code: 'crypto.auth_failed' },
      });
      expect(await aesGcmOpen(bundle.subarray(0, 29), key)).toMatchObject({
        error: { code: 'crypto.auth_failed' },
      });
    });

    it('fails with crypto.auth_failed under another key, and crypto.bad_key for a short key', async () => {
      expect(await aesGcmOpen(bundle, flipBit(key, 31))).toMatchObject({
        error: { code: 'crypto.auth_failed' },
      });
      expect(await aesGcmOpen(bundle, key.subarray(0, 16))).toMatchObject({
        error: { code: 'crypto.bad_key' },
      });
    });

    it('refuses to seal with a wrong-sized key or nonce', async () => {
      await expect(aesGcmSeal(plain, key.subarray(0, 16))).rejects.toMatchObject({ code: 'crypto.bad_key' });
      await expect(aesGcmSeal(plain, key, hex('00'.repeat(24)))).rejects.toMatchObject({
        code: 'crypto.bad_key',
      });
    });
  },
);
