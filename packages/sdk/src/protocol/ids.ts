/**
 * The shape a cuid2 has on the wire: a lower-case letter, then lower-case letters and digits.
 * Today's app validates `subagent` ids with this pattern (docs/wire.md §6.3, §10), so a UUID fails.
 */
const CUID_PATTERN = /^[a-z][0-9a-z]+$/;

/** True when `value` has the cuid2 shape that Happy validates (docs/wire.md §10). */
export function isCuid(value: unknown): value is string {
  return typeof value === 'string' && CUID_PATTERN.test(value);
}

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';
/** The alphabet's character codes. */
const ALPHABET_CODES: readonly number[] = Array.from(ALPHABET, (c) => c.charCodeAt(0));
/** cuid2's default length: a letter and 23 base-36 characters, about 124 random bits. */
const ID_LENGTH = 24;
/** The character codes of the id being made, reused from id to id. */
const codes: number[] = new Array<number>(ID_LENGTH).fill(0);

const pool = new Uint8Array(4096);
let next = pool.length;

function randomByte(): number {
  if (next === pool.length) {
    globalThis.crypto.getRandomValues(pool);
    next = 0;
  }
  return pool[next++]!;
}

/** A uniform integer in [0, n) for n ≤ 256, by rejection: no modulo bias. */
function randomBelow(n: number): number {
  const limit = 256 - (256 % n);
  for (;;) {
    const byte = randomByte();
    if (byte < limit) return byte % n;
  }
}

/**
 * A fresh id of the cuid2 shape (24 characters: a lower-case letter, then lower-case letters and
 * digits), for message ids, turn ids, call ids and agent ids (docs/protocol.md, "Identity"). Each
 * character comes straight from the platform CSPRNG, drawn from a pool refilled 4 KiB at a time:
 * cuid2's SHA3 hash and big-number conversion were the largest part of an append's own CPU
 * (docs/performance.md), and about 124 random bits need no hash to be unique and unguessable.
 * The id is made in one piece from its character codes: appended a character at a time it was a
 * chain of string pieces that every later use (hashing it into a set, writing it into JSON,
 * comparing it with its echo's `localId`) flattened again (docs/performance.md, "Cutting the
 * client's CPU per message").
 */
export function newId(): string {
  codes[0] = ALPHABET_CODES[10 + randomBelow(26)]!;
  for (let i = 1; i < ID_LENGTH; i++) codes[i] = ALPHABET_CODES[randomBelow(36)]!;
  return String.fromCharCode.apply(null, codes);
}
