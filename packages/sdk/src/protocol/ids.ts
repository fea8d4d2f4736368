import { init } from '@paralleldrive/cuid2';

/**
 * The shape a cuid2 has on the wire: a lower-case letter, then lower-case letters and digits.
 * Today's app validates `subagent` ids with this pattern (docs/wire.md §6.3, §10), so a UUID fails.
 */
const CUID_PATTERN = /^[a-z][0-9a-z]+$/;

/** True when `value` has the cuid2 shape that Happy validates (docs/wire.md §10). */
export function isCuid(value: unknown): value is string {
  return typeof value === 'string' && CUID_PATTERN.test(value);
}

const POOL_SIZE = 1024;
const pool = new Uint32Array(POOL_SIZE);
let next = POOL_SIZE;

/**
 * Uniform floats in [0, 1) from the platform CSPRNG, drawn from a pool refilled 4 KiB at a time:
 * cuid2 asks for one random number per character, and a `getRandomValues` call per number made id
 * generation the slowest step of appending a message.
 */
function pooledRandom(): number {
  if (next === POOL_SIZE) {
    globalThis.crypto.getRandomValues(pool);
    next = 0;
  }
  return pool[next++]! / 0x1_0000_0000;
}

const createId = init({ random: pooledRandom });

/** A fresh cuid2, for message ids, turn ids, call ids and agent ids (docs/protocol.md, "Identity"). */
export function newId(): string {
  return createId();
}
