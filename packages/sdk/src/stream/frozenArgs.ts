import { SdkError } from '../errors.js';
import { formatPath } from '../protocol/jsonValue.js';
import { MAX_RECORD_BYTES } from './recordSize.js';

/** Arguments as a call keeps them: a deep copy no caller holds, frozen at every level. */
export type FrozenArgs = Readonly<Record<string, unknown>>;

/**
 * The deepest nesting of arrays and objects the copy walks (docs/permissions-policy.md, "What runs
 * is what was shown"); deeper arguments are refused with `stream.invalid_message`.
 */
export const MAX_ARGS_DEPTH = 128;

/**
 * Characters of JSON the copy counts before it gives up: arguments that write more than a record
 * holds can never be appended, so they are refused (`stream.too_large`) as soon as the count
 * passes this, not after a walk of all of them.
 */
export const ARGS_BUDGET = MAX_RECORD_BYTES;

/**
 * A deep copy of `args` as JSON reads it, frozen at every level: what a call shows in its
 * `tool-call-start` and `permission-request`, what its executor runs and what a grant covers
 * (docs/permissions-policy.md, "What runs is what was shown"). Each property is read once, so a
 * getter, a proxy or a `toJSON()` that answers differently the next time cannot make what runs
 * differ from what was shown; a caller who keeps and mutates its own object changes nothing here.
 *
 * The copy holds only strings, finite numbers, booleans, null, arrays and plain objects: a `toJSON()`
 * is honoured as `JSON.stringify` honours it (a `Date` becomes its ISO string), an `undefined`
 * property is left out. Anything JSON cannot carry as written (a BigInt, a function, a symbol,
 * `NaN`, `undefined` in an array, a Map or a Set, a cycle, nesting deeper than
 * {@link MAX_ARGS_DEPTH}) is refused with `stream.invalid_message`.
 *
 * The walk is bounded before it is complete: it counts the JSON it would write (every key, also one
 * whose value is left out, and at least one character per array item, from the array's length
 * before any item is read) and refuses with `stream.too_large` as soon as the count passes
 * {@link MAX_RECORD_BYTES}, since such arguments can never be appended.
 */
export function frozenArgs(args: unknown, what = 'args'): FrozenArgs {
  let copy: unknown;
  try {
    copy = frozenCopy(args, '', [], { left: ARGS_BUDGET });
  } catch (error) {
    if (error instanceof OverBudget) throw tooLarge(what);
    if (!(error instanceof NotJson)) {
      // A stack overflow on hostile nesting, or a getter that throws: refused like any other input.
      throw invalid(
        what,
        [],
        error instanceof RangeError ? 'nested too deeply' : `unreadable (${String(error)})`,
      );
    }
    throw invalid(what, error.reversedPath.reverse(), error.found, error.expected);
  }
  if (typeof copy !== 'object' || copy === null || Array.isArray(copy)) {
    throw invalid(
      what,
      [],
      Array.isArray(copy) ? 'an array' : copy === null ? 'null' : `a ${typeof copy}`,
      'an object',
    );
  }
  return copy as FrozenArgs;
}

/** Where the copy met a value JSON cannot carry; each level adds its key on the way back up. */
class NotJson extends Error {
  readonly reversedPath: (string | number)[] = [];
  constructor(
    readonly found: string,
    readonly expected = 'JSON',
  ) {
    super(found);
  }
  within(key: string | number): NotJson {
    this.reversedPath.push(key);
    return this;
  }
}

/** The walk's count passed {@link ARGS_BUDGET}: thrown straight up, nothing more is read. */
class OverBudget extends Error {}

/** What the walk may still count; shared by every level of one copy. */
interface Budget {
  left: number;
}

/** Takes `chars` from the budget, or stops the walk. */
function spend(budget: Budget, chars: number): void {
  budget.left -= chars;
  if (budget.left < 0) throw new OverBudget();
}

/** The refusal of arguments that write more than {@link ARGS_BUDGET}: `stream.too_large`. */
export function tooLarge(what: string): SdkError {
  return new SdkError(
    'stream.too_large',
    `${what} write more than ${ARGS_BUDGET} characters of JSON; a record holds at most ${MAX_RECORD_BYTES} bytes.`,
    {
      hint: `pass ${what} that fit in one record (large content belongs in an attachment); nothing was appended`,
      details: { limit: MAX_RECORD_BYTES, path: what },
    },
  );
}

/** The refusal of arguments JSON cannot carry as written: `stream.invalid_message` at `path`. */
export function invalid(
  what: string,
  path: readonly (string | number)[],
  found: string,
  expected = 'JSON',
): SdkError {
  const where = formatPath([what, ...path]);
  const message =
    expected === 'JSON'
      ? `${where} is ${found}, which JSON cannot carry.`
      : `${where} is ${found}; it must be ${expected}.`;
  return new SdkError('stream.invalid_message', message, {
    hint: `pass ${what} as plain JSON data (an object of strings, finite numbers, booleans, null, arrays, objects); nothing was appended`,
    details: { issues: [{ path: [what, ...path], message }], path: where },
  });
}

function frozenCopy(input: unknown, key: string | number, ancestors: object[], budget: Budget): unknown {
  let value = input;
  if (typeof value === 'object' && value !== null) {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') value = (toJSON as (key: string) => unknown).call(value, String(key));
  }
  switch (typeof value) {
    case 'string':
      // A lower bound of what JSON writes: the quotes and one byte per UTF-16 unit.
      spend(budget, value.length + 2);
      return value;
    case 'boolean':
      spend(budget, 4);
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new NotJson(String(value));
      spend(budget, 1);
      return value;
    case 'bigint':
      throw new NotJson('a BigInt');
    case 'function':
      throw new NotJson('a function');
    case 'symbol':
      throw new NotJson('a symbol');
    case 'undefined':
      throw new NotJson('undefined');
  }
  if (value === null) {
    spend(budget, 4);
    return null;
  }
  const object = value as Record<string, unknown>;
  if (object instanceof Map || object instanceof Set)
    throw new NotJson(`a ${object instanceof Map ? 'Map' : 'Set'}`);
  if (ancestors.includes(object)) throw new NotJson('a circular reference');
  if (ancestors.length >= MAX_ARGS_DEPTH)
    throw new NotJson(`nested deeper than ${MAX_ARGS_DEPTH} levels`, `at most ${MAX_ARGS_DEPTH} deep`);
  ancestors.push(object);
  try {
    if (Array.isArray(object)) {
      const length = object.length;
      // Brackets, then an item and a comma each: known from the length before any item is read.
      spend(budget, 2 + Math.max(0, 2 * length - 1));
      const items: unknown[] = [];
      for (let i = 0; i < length; i++) {
        // Each item's own count below already holds its one character taken above.
        budget.left += 1;
        try {
          items.push(frozenCopy(object[i], i, ancestors, budget));
        } catch (error) {
          throw error instanceof NotJson ? error.within(i) : error;
        }
      }
      return Object.freeze(items);
    }
    // Listing the keys is the one step that is not bounded: V8 lists every key before any enumeration
    // (for…in too) visits the first (docs/performance.md, "Oversized tool arguments").
    const keys = Object.keys(object);
    // Braces, then per key its quotes, colon, comma and at least one character of value.
    spend(budget, 2 + 5 * keys.length);
    const out: Record<string, unknown> = {};
    for (const k of keys) {
      spend(budget, k.length);
      const v = object[k];
      if (v === undefined) continue;
      budget.left += 1;
      let copied: unknown;
      try {
        copied = frozenCopy(v, k, ancestors, budget);
      } catch (error) {
        throw error instanceof NotJson ? error.within(k) : error;
      }
      // A key named `__proto__` stays a key, as JSON.parse keeps it: assigned, it would set the prototype.
      if (k === '__proto__')
        Object.defineProperty(out, k, {
          value: copied,
          enumerable: true,
          writable: true,
          configurable: true,
        });
      else out[k] = copied;
    }
    return Object.freeze(out);
  } finally {
    ancestors.pop();
  }
}
