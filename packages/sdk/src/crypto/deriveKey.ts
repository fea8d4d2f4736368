import { hmac } from '@noble/hashes/hmac.js';
import { sha512 } from '@noble/hashes/sha2.js';

const utf8 = new TextEncoder();

/**
 * Happy's BIP32-like HMAC-SHA512 key tree. The root step keys HMAC with `usage + " Master Seed"`
 * and hashes the seed (not the other way round); each path element then keys HMAC with the chain
 * code over `0x00 || UTF8(element)`. Returns the final 32-byte key half.
 *
 * @see docs/wire.md §1.1
 */
export function deriveKey(seed: Uint8Array, usage: string, path: readonly string[]): Uint8Array {
  let node = hmac(sha512, utf8.encode(`${usage} Master Seed`), seed);
  for (const element of path) {
    const name = utf8.encode(element);
    const data = new Uint8Array(1 + name.length);
    data.set(name, 1);
    node = hmac(sha512, node.subarray(32, 64), data);
  }
  return node.slice(0, 32);
}
