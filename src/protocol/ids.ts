import { sha3_512 } from '@noble/hashes/sha3.js';
import { bytesToHex } from '@noble/hashes/utils.js';

/**
 * The shape a cuid2 has on the wire: a lower-case letter, then lower-case letters and digits.
 * Today's app validates `subagent` ids with this pattern (happy-wire §6.3, §10), so a UUID fails.
 */
const CUID_PATTERN = /^[a-z][0-9a-z]+$/;

/** True when `value` has the cuid2 shape that Happy validates (happy-wire §10). */
export function isCuid(value: unknown): value is string {
  return typeof value === 'string' && CUID_PATTERN.test(value);
}

/** Length of the ids {@link newId} makes: cuid2's default. */
const ID_LENGTH = 24;
/** cuid2's bound on the random start of the session counter. */
const INITIAL_COUNT_MAX = 476782367;

/**
 * Random floats in [0, 1) from the platform's CSPRNG, drawn 1,024 words at a time: one
 * `getRandomValues` per id character cost more than the rest of writing a message.
 */
class RandomPool {
  private readonly words = new Uint32Array(1024);
  private next = this.words.length;

  float(): number {
    if (this.next >= this.words.length) {
      globalThis.crypto.getRandomValues(this.words);
      this.next = 0;
    }
    return this.words[this.next++]! / 0x1_0000_0000;
  }
}

const pool = new RandomPool();
const utf8 = new TextEncoder();

function base36Entropy(length: number): string {
  let out = '';
  while (out.length < length) out += Math.floor(pool.float() * 36).toString(36);
  return out;
}

/** SHA3-512 of `input` as a base-36 number, first digit dropped (it is biased towards low digits). */
function hash36(input: string): string {
  return BigInt(`0x${bytesToHex(sha3_512(utf8.encode(input)))}`)
    .toString(36)
    .slice(1);
}

/** Host fingerprint, as cuid2 makes it: the global object's keys plus entropy, hashed. */
const fingerprint = hash36(Object.keys(globalThis).toString() + base36Entropy(32)).slice(0, 32);
let counter = Math.floor(pool.float() * INITIAL_COUNT_MAX);

/**
 * A fresh cuid2, for message ids, turn ids, call ids and agent ids (protocol v2, "Identity").
 *
 * The cuid2 construction (a random letter, then the base-36 SHA3-512 of time, random salt, a
 * session counter and a host fingerprint, cut to 24 characters), computed with native `BigInt`
 * and pooled randomness: the `@paralleldrive/cuid2` package spends about 0.3 ms per id in
 * per-character `getRandomValues` calls and a decimal big-number library, which made id
 * generation the largest cost of appending a message (bench `write.throughput`).
 */
export function newId(): string {
  const first = String.fromCharCode(97 + Math.floor(pool.float() * 26));
  const input = Date.now().toString(36) + base36Entropy(ID_LENGTH) + (counter++).toString(36) + fingerprint;
  return first + hash36(input).substring(1, ID_LENGTH);
}
