import { afterEach, describe, expect, it } from 'vitest';
import type { AesGcmCipher, RecordKey } from 'happy-session/crypto';
import { useAesGcmCipher, encodeBase64, webCryptoAesGcm } from 'happy-session/crypto';
import { aesGcmCipher, randomBytes } from 'happy-session/internal';
import { decryptRecordNow, encryptRecordBase64Now } from '../../packages/sdk/src/crypto/records.js';
import { installNodeAesGcm, nodeAesGcm } from '../../packages/sdk/src/transport/nodeAesGcm.js';
import { hex, toHex, vectors } from './fixtures.js';

const dataKeyVectors = [
  [
    'dataKey session envelope',
    vectors.dataKey.keyHex,
    vectors.dataKey.nonceHex,
    vectors.dataKey.plaintextJson,
    vectors.dataKey.bundleBase64,
  ],
  [
    'dataKeySmall',
    vectors.dataKeySmall.keyHex,
    vectors.dataKeySmall.nonceHex,
    vectors.dataKeySmall.plaintextJson,
    vectors.dataKeySmall.bundleBase64,
  ],
  ['rpc params', vectors.rpc.keyHex, vectors.rpc.nonceHex, vectors.rpc.paramsJson, vectors.rpc.paramsBase64],
] as const;

/** `0x00 || nonce || ciphertext || tag`, as the record format lays it out. */
function bundle(nonce: Uint8Array, sealed: Uint8Array): Uint8Array {
  return Uint8Array.from([0, ...nonce, ...sealed]);
}

describe('AES-GCM providers: node:crypto (synchronous) and WebCrypto give the same bytes (docs/crypto.md)', () => {
  const previous = aesGcmCipher();
  afterEach(() => useAesGcmCipher(previous));

  it.each(dataKeyVectors)(
    'both seal the %s vector byte for byte',
    async (_name, keyHex, nonceHex, json, expected) => {
      const key = hex(keyHex);
      const nonce = hex(nonceHex);
      const plain = new TextEncoder().encode(json);
      const fromNode = nodeAesGcm.seal(plain, key, nonce);
      expect(fromNode).toBeInstanceOf(Uint8Array);
      const fromWeb = await webCryptoAesGcm.seal(plain, key, nonce);
      expect(encodeBase64(bundle(nonce, fromNode as Uint8Array))).toBe(expected);
      expect(encodeBase64(bundle(nonce, fromWeb))).toBe(expected);
    },
  );

  it('each opens what the other sealed, for random keys, nonces and lengths', async () => {
    for (const length of [0, 1, 15, 16, 17, 255, 4096]) {
      const key = randomBytes(32);
      const nonce = randomBytes(12);
      const plain = randomBytes(length);
      const fromNode = nodeAesGcm.seal(plain, key, nonce) as Uint8Array;
      const fromWeb = await webCryptoAesGcm.seal(plain, key, nonce);
      expect(toHex(fromNode)).toBe(toHex(fromWeb));
      expect(toHex((await webCryptoAesGcm.open(fromNode, key, nonce))!)).toBe(toHex(plain));
      expect(toHex(nodeAesGcm.open(fromWeb, key, nonce) as Uint8Array)).toBe(toHex(plain));
    }
  });

  it.each([
    ['a changed ciphertext byte', (b: Uint8Array) => ((b[0] = b[0]! ^ 1), b)],
    ['a changed tag byte', (b: Uint8Array) => ((b[b.length - 1] = b[b.length - 1]! ^ 1), b)],
    ['a cut tag', (b: Uint8Array) => b.subarray(0, b.length - 1)],
    ['fewer bytes than a tag', (b: Uint8Array) => b.subarray(0, 5)],
  ])('node:crypto answers undefined, without throwing, for %s', (_what, damage) => {
    const key = randomBytes(32);
    const nonce = randomBytes(12);
    const sealed = nodeAesGcm.seal(new TextEncoder().encode('{"a":1}'), key, nonce) as Uint8Array;
    expect(nodeAesGcm.open(damage(sealed.slice()), key, nonce)).toBeUndefined();
  });

  it('with node:crypto installed, a dataKey record is sealed and opened without a promise', () => {
    useAesGcmCipher(nodeAesGcm);
    const v = vectors.dataKeySmall;
    const key: RecordKey = { variant: 'dataKey', key: hex(v.keyHex) };
    const sealed = encryptRecordBase64Now({ a: 1 }, key, { nonce: hex(v.nonceHex) });
    expect(sealed).toBe(v.bundleBase64);
    expect(decryptRecordNow(v.bundleBase64, key)).toEqual({ ok: true, value: { a: 1 } });
  });

  it('with WebCrypto installed, the same calls give promises of the same values', async () => {
    useAesGcmCipher(webCryptoAesGcm);
    const v = vectors.dataKeySmall;
    const key: RecordKey = { variant: 'dataKey', key: hex(v.keyHex) };
    const sealed = encryptRecordBase64Now({ a: 1 }, key, { nonce: hex(v.nonceHex) });
    expect(sealed).toBeInstanceOf(Promise);
    expect(await sealed).toBe(v.bundleBase64);
    expect(await decryptRecordNow(v.bundleBase64, key)).toEqual({ ok: true, value: { a: 1 } });
  });

  it('installNodeAesGcm replaces the WebCrypto default but keeps a cipher a program installed', () => {
    useAesGcmCipher(webCryptoAesGcm);
    installNodeAesGcm();
    expect(aesGcmCipher()).toBe(nodeAesGcm);
    const own: AesGcmCipher = { name: 'own', seal: nodeAesGcm.seal, open: nodeAesGcm.open };
    useAesGcmCipher(own);
    installNodeAesGcm();
    expect(aesGcmCipher()).toBe(own);
  });
});
