import { describe, expect, it } from 'vitest';
import {
  accountQrUrl,
  decodeBase64,
  deriveAccountKeys,
  encodeBase64,
  openPairingResponse,
  pairingKeyPair,
  sealPairingResponse,
  terminalQrUrl,
  terminalWebUrl,
} from 'happy-session/crypto';
import { decodeBase64Url } from 'happy-session/internal';
import { flipBit, hex, vectors } from './fixtures.js';

const v = vectors.terminalPairing;
const master = hex(vectors.account.masterSecretHex);
const account = deriveAccountKeys(master);
const terminal = pairingKeyPair(hex(v.terminalSecretKeyHex));
const pinned = { ephemeralSecretKey: hex(v.appEphemeralSecretKeyHex), nonce: hex(v.nonceHex) };
const v2Plaintext = new Uint8Array([0, ...account.content.publicKey]);

describe('terminal pairing and account linking (docs/wire.md §1.3, §1.4)', () => {
  it('derives the terminal public key from its secret key', () => {
    expect(encodeBase64(terminal.publicKey)).toBe(v.terminalPublicKeyBase64);
    expect(terminal.secretKey).toEqual(hex(v.terminalSecretKeyHex));
  });

  it('builds both QR URLs with the base64url key (three slashes for account linking)', () => {
    expect(terminalQrUrl(terminal.publicKey)).toBe(v.qrUrl);
    expect(accountQrUrl(terminal.publicKey)).toBe(v.accountQrUrl);
    expect(decodeBase64Url(v.qrUrl.split('?')[1]!)).toEqual(terminal.publicKey);
  });

  it('builds the web link from the web app URL', () => {
    const key = v.qrUrl.split('?')[1]!;
    expect(terminalWebUrl('https://app.example.test/', terminal.publicKey)).toBe(
      `https://app.example.test/terminal/connect#key=${key}`,
    );
  });

  it('seals the V2 response (0x00 || content public key) to the vector', () => {
    const sealed = sealPairingResponse(v2Plaintext, terminal.publicKey, pinned);
    expect(encodeBase64(sealed)).toBe(v.responseV2Base64);
    expect(sealed).toHaveLength(32 + 24 + v.responseV2PlaintextLength + 16);
  });

  it('seals the V1 response (the master secret) to the vector', () => {
    const sealed = sealPairingResponse(master, terminal.publicKey, pinned);
    expect(encodeBase64(sealed)).toBe(v.responseV1Base64);
    expect(sealed).toHaveLength(32 + 24 + v.responseV1PlaintextLength + 16);
  });

  it('opens the V2 vector as dataKey credentials carrying the content public key', () => {
    expect(openPairingResponse(v.responseV2Base64, terminal.secretKey)).toEqual({
      ok: true,
      value: { kind: 'dataKey', contentPublicKey: account.content.publicKey },
    });
  });

  it('opens the V1 vector as legacy credentials carrying the master secret', () => {
    expect(openPairingResponse(decodeBase64(v.responseV1Base64), terminal.secretKey)).toEqual({
      ok: true,
      value: { kind: 'legacy', secret: master },
    });
  });

  it('round-trips with a random pairing key pair and random ephemeral key', () => {
    const fresh = pairingKeyPair();
    expect(fresh.publicKey).toHaveLength(32);
    expect(fresh.publicKey).not.toEqual(terminal.publicKey);
    expect(openPairingResponse(sealPairingResponse(master, fresh.publicKey), fresh.secretKey)).toEqual({
      ok: true,
      value: { kind: 'legacy', secret: master },
    });
  });

  it('fails with crypto.bad_version for a plaintext of neither shape', () => {
    for (const plain of [
      new Uint8Array(31),
      new Uint8Array([1, ...account.content.publicKey]),
      new Uint8Array(34),
    ]) {
      const sealed = sealPairingResponse(plain, terminal.publicKey);
      expect(openPairingResponse(sealed, terminal.secretKey)).toMatchObject({
        ok: false,
        error: { code: 'crypto.bad_version' },
      });
    }
  });

  it('fails with crypto.auth_failed for a changed byte or another recipient', () => {
    const bundle = decodeBase64(v.responseV2Base64);
    for (const index of [0, 40, 60, bundle.length - 1]) {
      expect(openPairingResponse(flipBit(bundle, index), terminal.secretKey)).toMatchObject({
        error: { code: 'crypto.auth_failed' },
      });
    }
    expect(openPairingResponse(bundle, pairingKeyPair().secretKey)).toMatchObject({
      error: { code: 'crypto.auth_failed' },
    });
  });

  it('fails with crypto.too_short below 72 bytes and crypto.invalid_base64 for bad text', () => {
    const bundle = decodeBase64(v.responseV1Base64);
    for (let length = 0; length < 72; length++) {
      expect(openPairingResponse(bundle.subarray(0, length), terminal.secretKey)).toMatchObject({
        error: { code: 'crypto.too_short' },
      });
    }
    expect(openPairingResponse('***', terminal.secretKey)).toMatchObject({
      error: { code: 'crypto.invalid_base64' },
    });
  });

  it('refuses wrong-sized pairing keys', () => {
    expect(() => pairingKeyPair(new Uint8Array(31))).toThrow(
      expect.objectContaining({ code: 'crypto.bad_key' }),
    );
    expect(() => terminalQrUrl(new Uint8Array(33))).toThrow(
      expect.objectContaining({ code: 'crypto.bad_key' }),
    );
    expect(openPairingResponse(v.responseV1Base64, new Uint8Array(16))).toMatchObject({
      error: { code: 'crypto.bad_key' },
    });
  });
});
