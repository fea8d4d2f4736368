import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ciphers, usingCipher } from './ciphers.js';
import {
  decodeBase64,
  decryptRecord,
  encodeBase64,
  encryptRecord,
  type RecordKey,
} from 'happy-session/crypto';
import { aesGcmSeal, encryptRecordBase64, secretboxSeal } from 'happy-session/internal';
import { flipBit, hex, utf8, vectors } from './fixtures.js';

const legacyKey: RecordKey = { variant: 'legacy', key: hex(vectors.legacy.keyHex) };
const dataKey: RecordKey = { variant: 'dataKey', key: hex(vectors.dataKey.keyHex) };
const keys = [legacyKey, dataKey] as const;

describe.each(ciphers)(
  'record vectors (docs/wire.md §3.1, §7.1, §10), with the %s cipher',
  (_name, cipher) => {
    usingCipher(cipher);
    it('encrypts the legacy user message to the 96-byte vector and back', async () => {
      const v = vectors.legacy;
      const value: unknown = JSON.parse(v.plaintextJson);
      const bundle = await encryptRecord(value, legacyKey, { nonce: hex(v.nonceHex) });
      expect(bundle).toHaveLength(v.bundleLength);
      expect(encodeBase64(bundle)).toBe(v.bundleBase64);
      expect(await decryptRecord(v.bundleBase64, legacyKey)).toEqual({ ok: true, value });
    });

    it('encrypts the dataKey session envelope to the 217-byte vector and back', async () => {
      const v = vectors.dataKey;
      const value: unknown = JSON.parse(v.plaintextJson);
      const bundle = await encryptRecord(value, dataKey, { nonce: hex(v.nonceHex) });
      expect(bundle).toHaveLength(v.bundleLength);
      expect(encodeBase64(bundle)).toBe(v.bundleBase64);
      expect(await decryptRecord(v.bundleBase64, dataKey)).toEqual({ ok: true, value });
    });

    it('encrypts the small dataKey record to its vector and back', async () => {
      const v = vectors.dataKeySmall;
      const key: RecordKey = { variant: 'dataKey', key: hex(v.keyHex) };
      expect(await encryptRecordBase64({ a: 1 }, key, { nonce: hex(v.nonceHex) })).toBe(v.bundleBase64);
      expect(await decryptRecord(hex(v.bundleHex), key)).toEqual({ ok: true, value: { a: 1 } });
    });

    it('encrypts the permission RPC params to their vector and back (RPC params are records)', async () => {
      const v = vectors.rpc;
      const key: RecordKey = { variant: 'dataKey', key: hex(v.keyHex) };
      const params: unknown = JSON.parse(v.paramsJson);
      expect(await encryptRecordBase64(params, key, { nonce: hex(v.nonceHex) })).toBe(v.paramsBase64);
      expect(await decryptRecord(v.paramsBase64, key)).toEqual({ ok: true, value: params });
    });

    it('encrypts undefined as empty plaintext, which reads back as null (an RPC result of undefined)', async () => {
      const bundle = await encryptRecord(undefined, dataKey);
      expect(bundle).toHaveLength(29);
      expect(await decryptRecord(bundle, dataKey)).toEqual({ ok: true, value: null });
      expect(await decryptRecord(await encryptRecord(undefined, legacyKey), legacyKey)).toEqual({
        ok: true,
        value: null,
      });
    });

    it('refuses to encrypt what JSON.stringify cannot, and an unknown variant', async () => {
      await expect(encryptRecord({ n: 1n }, dataKey)).rejects.toMatchObject({ code: 'crypto.invalid_json' });
      const cyclic: Record<string, unknown> = {};
      cyclic.self = cyclic;
      await expect(encryptRecord(cyclic, legacyKey)).rejects.toMatchObject({ code: 'crypto.invalid_json' });
      const bogus = { variant: 'aes', key: dataKey.key } as unknown as RecordKey;
      await expect(encryptRecord({}, bogus)).rejects.toMatchObject({ code: 'crypto.bad_key' });
    });
  },
);

describe.each(ciphers)(
  'decryptRecord failures: a typed result, never a throw, with the %s cipher',
  (_name, cipher) => {
    usingCipher(cipher);
    const legacyBundle = decodeBase64(vectors.legacy.bundleBase64);
    const dataKeyBundle = hex(vectors.dataKeySmall.bundleHex);

    it('reports a changed version byte as crypto.bad_version', async () => {
      expect(await decryptRecord(flipBit(dataKeyBundle, 0), dataKey)).toMatchObject({
        ok: false,
        error: { code: 'crypto.bad_version' },
      });
    });

    it.each([
      ['dataKey nonce', 'dataKey', 5],
      ['dataKey ciphertext', 'dataKey', 15],
      ['dataKey tag', 'dataKey', 30],
      ['legacy nonce', 'legacy', 5],
      ['legacy tag', 'legacy', 30],
      ['legacy ciphertext', 'legacy', 70],
    ] as const)('reports a changed %s as crypto.auth_failed', async (_region, variant, index) => {
      const [bundle, key] = variant === 'dataKey' ? [dataKeyBundle, dataKey] : [legacyBundle, legacyKey];
      expect(await decryptRecord(flipBit(bundle, index, 7), key)).toMatchObject({
        ok: false,
        error: { code: 'crypto.auth_failed' },
      });
    });

    it('reports every truncation below the minimum as crypto.too_short, a mid cut as crypto.auth_failed', async () => {
      for (const [bundle, key, min] of [
        [dataKeyBundle, dataKey, 29],
        [legacyBundle, legacyKey, 40],
      ] as const) {
        for (let length = 0; length < min; length++) {
          expect(await decryptRecord(bundle.subarray(0, length), key)).toMatchObject({
            error: { code: 'crypto.too_short' },
          });
        }
        const mid = Math.floor((min + bundle.length) / 2);
        expect(await decryptRecord(bundle.subarray(0, mid), key)).toMatchObject({
          error: { code: 'crypto.auth_failed' },
        });
      }
    });

    it('reports the wrong key as crypto.auth_failed', async () => {
      expect(
        await decryptRecord(dataKeyBundle, { variant: 'dataKey', key: new Uint8Array(32) }),
      ).toMatchObject({
        error: { code: 'crypto.auth_failed' },
      });
      expect(await decryptRecord(legacyBundle, { variant: 'legacy', key: new Uint8Array(32) })).toMatchObject(
        {
          error: { code: 'crypto.auth_failed' },
        },
      );
    });

    it('reports the wrong variant as a failure (legacy read as dataKey: bad version; the reverse: auth)', async () => {
      expect(await decryptRecord(legacyBundle, { variant: 'dataKey', key: legacyKey.key })).toMatchObject({
        error: { code: 'crypto.bad_version' },
      });
      expect(
        await decryptRecord(vectors.dataKey.bundleBase64, { variant: 'legacy', key: dataKey.key }),
      ).toMatchObject({
        error: { code: 'crypto.auth_failed' },
      });
    });

    it('reports an unknown variant or a wrong-sized key as crypto.bad_key', async () => {
      const bogus = { variant: 'plain', key: dataKey.key } as unknown as RecordKey;
      expect(await decryptRecord(dataKeyBundle, bogus)).toMatchObject({ error: { code: 'crypto.bad_key' } });
      expect(
        await decryptRecord(dataKeyBundle, { variant: 'dataKey', key: new Uint8Array(16) }),
      ).toMatchObject({
        error: { code: 'crypto.bad_key' },
      });
    });

    it('reports non-base64 text as crypto.invalid_base64', async () => {
      for (const text of ['not base64!', 'AGBh YmNk', 'AGBhY']) {
        expect(await decryptRecord(text, dataKey)).toMatchObject({
          error: { code: 'crypto.invalid_base64' },
        });
      }
    });

    it('reports authentic ciphertext of invalid UTF-8 as crypto.invalid_utf8', async () => {
      const notUtf8 = new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]);
      expect(await decryptRecord(await aesGcmSeal(notUtf8, dataKey.key), dataKey)).toMatchObject({
        error: { code: 'crypto.invalid_utf8' },
      });
      expect(await decryptRecord(secretboxSeal(notUtf8, legacyKey.key), legacyKey)).toMatchObject({
        error: { code: 'crypto.invalid_utf8' },
      });
    });

    it('reports authentic ciphertext of non-JSON text as crypto.invalid_json', async () => {
      for (const text of ['{"a":', 'hello', '\uFEFF{}', 'undefined']) {
        expect(await decryptRecord(await aesGcmSeal(utf8(text), dataKey.key), dataKey)).toMatchObject({
          error: { code: 'crypto.invalid_json' },
        });
        expect(await decryptRecord(secretboxSeal(utf8(text), legacyKey.key), legacyKey)).toMatchObject({
          error: { code: 'crypto.invalid_json' },
        });
      }
    });
  },
);

describe('record properties', () => {
  it('round-trips arbitrary JSON values in both variants', async () => {
    await fc.assert(
      fc.asyncProperty(fc.jsonValue(), fc.constantFrom(...keys), async (value, key) => {
        const expected: unknown = JSON.parse(JSON.stringify(value));
        expect(await decryptRecord(await encryptRecordBase64(value, key), key)).toEqual({
          ok: true,
          value: expected,
        });
      }),
    );
  });

  it('fails on any single flipped bit of a bundle, in both variants', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue({ maxDepth: 2 }),
        fc.constantFrom(...keys),
        fc.nat(),
        fc.integer({ min: 0, max: 7 }),
        async (value, key, position, bit) => {
          const bundle = await encryptRecord(value, key);
          const index = position % bundle.length;
          const result = await decryptRecord(flipBit(bundle, index, bit), key);
          expect(result.ok).toBe(false);
          const expected =
            key.variant === 'dataKey' && index === 0 ? 'crypto.bad_version' : 'crypto.auth_failed';
          expect(result).toMatchObject({ error: { code: expected } });
        },
      ),
    );
  });
});
