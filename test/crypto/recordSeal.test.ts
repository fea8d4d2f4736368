import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  RecordSeals,
  sealRecord,
  verifyRecordSeal,
} from '../../packages/sdk/src/crypto/recordSeal.js';

const key = Uint8Array.from({ length: 32 }, (_, i) => i * 7);
const other = Uint8Array.from({ length: 32 }, (_, i) => 255 - i);

function record(i: number): Record<string, unknown> {
  return {
    id: `m${i}`,
    time: 1_700_000_000_000 + i,
    role: 'user',
    type: 'permission-response',
    callId: `call-${i}`,
    optionId: i % 2 ? 'allow-once' : 'reject-once',
    via: 'rpc',
    ...(i % 3 ? { updatedInput: { command: `make ${'x'.repeat(i * 13)}`, nested: { b: 1, a: [i] } } } : {}),
  };
}

/** HMAC-SHA256 of the canonical JSON without `seal`, in base64url, by node:crypto: what a seal is. */
function nodeSeal(k: Uint8Array, r: Record<string, unknown>): string {
  const { seal: _seal, ...rest } = r;
  return createHmac('sha256', k).update(canonicalJson(rest)).digest('base64url');
}

describe('record seals', () => {
  it('are the HMAC-SHA256 of the canonical JSON, record after record under one prepared key', () => {
    const seals = new RecordSeals(key);
    for (let i = 0; i < 40; i++) {
      const r = record(i);
      expect(seals.seal(r)).toBe(nodeSeal(key, r));
      expect(sealRecord(key, r)).toBe(nodeSeal(key, r));
    }
    // The prepared key is not worn by use: the first record seals the same after the others.
    expect(seals.seal(record(0))).toBe(nodeSeal(key, record(0)));
  });

  it('verify what they sealed, and nothing changed, sealed under another key or malformed', () => {
    const seals = new RecordSeals(key);
    for (let i = 0; i < 20; i++) {
      const sealed = { ...record(i), seal: seals.seal(record(i)) };
      expect(seals.verify(sealed)).toBe(true);
      expect(verifyRecordSeal(key, sealed)).toBe(true);
      expect(seals.verify({ ...sealed, optionId: 'allow-always' })).toBe(false);
      expect(new RecordSeals(other).verify(sealed)).toBe(false);
      expect(seals.verify({ ...sealed, seal: `${sealed.seal as string}A` })).toBe(false);
      expect(seals.verify({ ...sealed, seal: '!!not base64!!' })).toBe(false);
      expect(seals.verify({ ...sealed, seal: 'A'.repeat(65) })).toBe(false);
      expect(seals.verify(record(i))).toBe(false);
    }
  });
});
