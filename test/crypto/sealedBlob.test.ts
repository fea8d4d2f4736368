import { describe, expect, it } from 'vitest';
import { decryptBlob, encryptBlob } from 'happy-session/crypto';
import { randomBytes, sealBlobStream, sealedBlobBytes } from 'happy-session/internal';
import { hex, toHex, utf8, vectors } from './fixtures.js';

function joined(pieces: Iterable<Uint8Array>): Uint8Array {
  const list = [...pieces];
  const out = new Uint8Array(list.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const piece of list) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

describe('blobs sealed piece by piece: the same bytes as encryptBlob (docs/wire.md §3.2, docs/media.md)', () => {
  it('seals PNGDATA to the 47-byte vector', () => {
    const v = vectors.blob;
    const sealed = sealBlobStream(utf8(v.plaintextUtf8), hex(v.sessionBlobKeyHex), {
      nonce: hex(v.nonceHex),
    });
    expect(sealed.length).toBe(v.bundleLength);
    expect(Buffer.from(sealed.toBytes()).toString('base64')).toBe(v.bundleBase64);
  });

  it.each([0, 1, 31, 32, 33, 63, 64, 65, 1000, 65_536, 65_537, 200_003])(
    'gives byte for byte what encryptBlob gives for %i bytes, whatever the piece size',
    (size) => {
      const plain = randomBytes(size);
      const key = randomBytes(32);
      const nonce = randomBytes(24);
      const whole = toHex(encryptBlob(plain, key, { nonce }));
      const sealed = sealBlobStream(plain, key, { nonce });
      expect(sealed.length).toBe(whole.length / 2);
      expect(toHex(sealed.toBytes())).toBe(whole);
      for (const chunkSize of [1, 7, 40, 41, 64, 100, 65_536])
        expect(toHex(joined(sealed.chunks(chunkSize)))).toBe(whole);
    },
  );

  it('yields pieces of the size asked (the header inside the first), and can be read again', () => {
    const plain = randomBytes(10_000);
    const key = randomBytes(32);
    const sealed = sealBlobStream(plain, key);
    const first = [...sealed.chunks(4096)];
    expect(first.map((p) => p.length)).toEqual([4096, 4096, 1848]);
    expect([...sealed.chunks(16)].slice(0, 4).map((p) => p.length)).toEqual([16, 16, 16, 16]);
    expect(toHex(joined(sealed.chunks(4096)))).toBe(toHex(joined(first)));
    expect(decryptBlob(joined(first), key)).toEqual({ ok: true, value: plain });
  });

  it('reads any range into a buffer the caller refills, the header included, fewer bytes only at the end', async () => {
    const plain = randomBytes(100_000);
    const key = randomBytes(32);
    const nonce = randomBytes(24);
    const whole = encryptBlob(plain, key, { nonce });
    const sealed = sealBlobStream(plain, key, { nonce });
    const buffer = new Uint8Array(5_000);
    for (const position of [0, 1, 39, 40, 41, 63, 64, 4_999, 50_001, 99_000]) {
      const read = sealed.readInto(buffer, position);
      expect(read).toBe(Math.min(buffer.length, whole.length - position));
      expect(toHex(buffer.subarray(0, read))).toBe(toHex(whole.subarray(position, position + read)));
    }
    expect(sealed.readInto(buffer, whole.length)).toBe(0);
    expect(toHex(await sealedBlobBytes(sealed))).toBe(toHex(whole));
  });

  it('uses a fresh random nonce by default', () => {
    const plain = randomBytes(100);
    const key = randomBytes(32);
    const a = sealBlobStream(plain, key).toBytes();
    const b = sealBlobStream(plain, key).toBytes();
    expect(toHex(a.subarray(0, 24))).not.toBe(toHex(b.subarray(0, 24)));
  });

  it('refuses a wrong-sized key or nonce with crypto.bad_key', () => {
    expect(() => sealBlobStream(new Uint8Array(1), new Uint8Array(31))).toThrow(
      expect.objectContaining({ code: 'crypto.bad_key' }),
    );
    expect(() =>
      sealBlobStream(new Uint8Array(1), new Uint8Array(32), { nonce: new Uint8Array(12) }),
    ).toThrow(expect.objectContaining({ code: 'crypto.bad_key' }));
  });
});
