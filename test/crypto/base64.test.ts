import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeBase64, encodeBase64 } from 'happy-session/crypto';
import { decodeBase64Url, encodeBase64Url } from 'happy-session/internal';
import { isSdkError } from 'happy-session';
import { hex, utf8, vectors } from './fixtures.js';

function decodeError(text: string): unknown {
  try {
    decodeBase64(text);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('base64 (docs/wire.md §3.4)', () => {
  it('encodes the master secret vector in both forms', () => {
    const master = hex(vectors.account.masterSecretHex);
    expect(encodeBase64(master)).toBe(vectors.account.masterSecretBase64);
    expect(encodeBase64Url(master)).toBe(vectors.account.masterSecretBase64url);
  });

  it('matches RFC 4648 test vectors, padded and unpadded', () => {
    const cases: [string, string, string][] = [
      ['', '', ''],
      ['f', 'Zg==', 'Zg'],
      ['fo', 'Zm8=', 'Zm8'],
      ['foo', 'Zm9v', 'Zm9v'],
      ['foob', 'Zm9vYg==', 'Zm9vYg'],
      ['fooba', 'Zm9vYmE=', 'Zm9vYmE'],
      ['foobar', 'Zm9vYmFy', 'Zm9vYmFy'],
    ];
    for (const [plain, standard, url] of cases) {
      expect(encodeBase64(utf8(plain))).toBe(standard);
      expect(encodeBase64Url(utf8(plain))).toBe(url);
      expect(decodeBase64(standard)).toEqual(utf8(plain));
      expect(decodeBase64(url)).toEqual(utf8(plain));
    }
  });

  it('uses +/ in the standard alphabet and -_ in the URL-safe one', () => {
    const bytes = new Uint8Array([0xfb, 0xff, 0xbf]);
    expect(encodeBase64(bytes)).toBe('+/+/');
    expect(encodeBase64Url(bytes)).toBe('-_-_');
  });

  it('decodes either alphabet, padded or not, with both decoders', () => {
    const pk = vectors.terminalPairing.terminalPublicKeyBase64;
    const url = vectors.terminalPairing.qrUrl.split('?')[1]!;
    expect(decodeBase64(url)).toEqual(decodeBase64(pk));
    expect(decodeBase64Url(pk)).toEqual(decodeBase64Url(url));
    expect(decodeBase64Url(`${url}=`)).toEqual(decodeBase64(pk));
  });

  it.each([
    ['a character outside both alphabets', 'Zm9v!A=='],
    ['whitespace', 'Zm9v YmFy'],
    ['a line break', 'Zm9v\nYmFy'],
    ['an impossible length', 'Zm9vY'],
    ['a lone padding character', '='],
    ['padding only', '===='],
    ['padding in the middle', 'Zg==Zg=='],
    ['three padding characters', 'Z==='],
    ['padding on a non-multiple of four', 'Zg='],
    ['mixed alphabets', '+/-_'],
    ['non-zero leftover bits', 'Zh=='],
    ['a non-ASCII character', 'Zm9vé'],
  ])('rejects %s with crypto.invalid_base64', (_name, text) => {
    expect(isSdkError(decodeError(text), 'crypto.invalid_base64')).toBe(true);
  });

  it('rejects a non-string with crypto.invalid_base64', () => {
    expect(isSdkError(decodeError(42 as unknown as string), 'crypto.invalid_base64')).toBe(true);
  });

  it('round-trips arbitrary bytes in both forms', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 200 }), (bytes) => {
        expect(decodeBase64(encodeBase64(bytes))).toEqual(bytes);
        expect(decodeBase64Url(encodeBase64Url(bytes))).toEqual(bytes);
      }),
    );
  });
});
