import { describe, expect, it } from 'vitest';
import { blobKeyFor, decodeBase64, decryptBlob, encodeBase64, encryptBlob } from 'happy-session/crypto';
import { masterBlobKey, sessionBlobKey } from 'happy-session/internal';
import { flipBit, hex, toHex, utf8, vectors } from './fixtures.js';

const v = vectors.blob;
const sessionKey = hex(v.sessionKeyHex);
const master = hex(vectors.account.masterSecretHex);

describe('attachment blobs (docs/wire.md §3.2)', () => {
  it('derives the session and master blob keys', () => {
    expect(toHex(sessionBlobKey(sessionKey))).toBe(v.sessionBlobKeyHex);
    expect(toHex(masterBlobKey(master))).toBe(vectors.account.masterBlobKeyHex);
  });

  it('picks the blob key by record variant', () => {
    expect(toHex(blobKeyFor({ variant: 'dataKey', key: sessionKey }))).toBe(v.sessionBlobKeyHex);
    expect(toHex(blobKeyFor({ variant: 'legacy', key: master }))).toBe(vectors.account.masterBlobKeyHex);
  });

  it('encrypts PNGDATA to the 47-byte vector and back', () => {
    const bundle = encryptBlob(utf8(v.plaintextUtf8), hex(v.sessionBlobKeyHex), { nonce: hex(v.nonceHex) });
    expect(bundle).toHaveLength(v.bundleLength);
    expect(encodeBase64(bundle)).toBe(v.bundleBase64);
    expect(decryptBlob(bundle, hex(v.sessionBlobKeyHex))).toEqual({ ok: true, value: utf8(v.plaintextUtf8) });
  });

  it('round-trips binary data with a random nonce', () => {
    const data = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) & 0xff);
    const key = masterBlobKey(master);
    expect(decryptBlob(encryptBlob(data, key), key)).toEqual({ ok: true, value: data });
  });

  it('fails on a changed byte, a short bundle, or the other blob key', () => {
    const bundle = decodeBase64(v.bundleBase64);
    const key = hex(v.sessionBlobKeyHex);
    expect(decryptBlob(flipBit(bundle, 30), key)).toMatchObject({
      ok: false,
      error: { code: 'crypto.auth_failed' },
    });
    expect(decryptBlob(bundle.subarray(0, 39), key)).toMatchObject({ error: { code: 'crypto.too_short' } });
    expect(decryptBlob(bundle, masterBlobKey(master))).toMatchObject({
      error: { code: 'crypto.auth_failed' },
    });
  });
});
