import { describe, expect, it } from 'vitest';
import { deriveKey } from 'happy-session/internal';
import { hex, toHex, utf8, vectors } from './fixtures.js';

describe('deriveKey (docs/wire.md §1.1)', () => {
  it("reproduces the repo's own key tree vector", () => {
    const v = vectors.keyTreeRepoVector;
    expect(toHex(deriveKey(utf8('test seed'), v.usage, v.path))).toBe(v.finalKeyHex.toLowerCase());
  });

  it('derives the content seed from the master secret', () => {
    const master = hex(vectors.account.masterSecretHex);
    expect(toHex(deriveKey(master, 'Happy EnCoder', ['content']))).toBe(vectors.account.contentSeedHex);
  });

  it('keys the root HMAC with the usage string, so usage and path both change the key', () => {
    const seed = utf8('test seed');
    const base = toHex(deriveKey(seed, 'test usage', ['child1', 'child2']));
    expect(toHex(deriveKey(seed, 'test usagf', ['child1', 'child2']))).not.toBe(base);
    expect(toHex(deriveKey(seed, 'test usage', ['child1', 'child3']))).not.toBe(base);
    expect(toHex(deriveKey(seed, 'test usage', ['child1']))).not.toBe(base);
    expect(deriveKey(seed, 'test usage', [])).toHaveLength(32);
  });
});
