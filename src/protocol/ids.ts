import { createId } from '@paralleldrive/cuid2';

/**
 * The shape a cuid2 has on the wire: a lower-case letter, then lower-case letters and digits.
 * Today's app validates `subagent` ids with this pattern (happy-wire §6.3, §10), so a UUID fails.
 */
const CUID_PATTERN = /^[a-z][0-9a-z]+$/;

/** True when `value` has the cuid2 shape that Happy validates (happy-wire §10). */
export function isCuid(value: unknown): value is string {
  return typeof value === 'string' && CUID_PATTERN.test(value);
}

/** A fresh cuid2, for message ids, turn ids, call ids and agent ids (protocol v2, "Identity"). */
export function newId(): string {
  return createId();
}
