import { SdkError } from '../errors.js';
import { formatPath } from '../protocol/jsonValue.js';

/** Arguments as a call keeps them: a deep copy no caller holds, frozen at every level. */
export type FrozenArgs = Readonly<Record<string, unknown>>;

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
 * `NaN`, `undefined` in an array, a Map or a Set, a cycle, nesting too deep to walk) is refused
 * with `stream.invalid_message`.
 */
export function frozenArgs(args: unknown, what = 'args'): FrozenArgs {
  let copy: unknown;
  try {
    copy = frozenCopy(args, '', []);
  } catch (error) {
    if (!(error instanceof NotJson)) {
      // A stack overflow on hostile nesting, or a getter that throws: refused like any other input.
      throw invalid(
        what,
        [],
        error instanceof RangeError ? 'nested too deeply' : `unreadable (${String(error)})`,
      );
    }
    throw invalid(what, error.reversedPath.reverse(), error.found);
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
  constructor(readonly found: string) {
    super(found);
  }
  within(key: string | number): NotJson {
    this.reversedPath.push(key);
    return this;
  }
}

function invalid(
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

function frozenCopy(input: unknown, key: string | number, ancestors: object[]): unknown {
  let value = input;
  if (typeof value === 'object' && value !== null) {
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') value = (toJSON as (key: string) => unknown).call(value, String(key));
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (Number.isFinite(value)) return value;
      throw new NotJson(String(value));
    case 'bigint':
      throw new NotJson('a BigInt');
    case 'function':
      throw new NotJson('a function');
    case 'symbol':
      throw new NotJson('a symbol');
    case 'undefined':
      throw new NotJson('undefined');
  }
  if (value === null) return null;
  const object = value as Record<string, unknown>;
  if (object instanceof Map || object instanceof Set)
    throw new NotJson(`a ${object instanceof Map ? 'Map' : 'Set'}`);
  if (ancestors.includes(object)) throw new NotJson('a circular reference');
  ancestors.push(object);
  try {
    if (Array.isArray(object)) {
      const length = object.length;
      const items: unknown[] = [];
      for (let i = 0; i < length; i++) {
        try {
          items.push(frozenCopy(object[i], i, ancestors));
        } catch (error) {
          throw error instanceof NotJson ? error.within(i) : error;
        }
      }
      return Object.freeze(items);
    }
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(object)) {
      const v = object[k];
      if (v === undefined) continue;
      let copied: unknown;
      try {
        copied = frozenCopy(v, k, ancestors);
      } catch (error) {
        throw error instanceof NotJson ? error.within(k) : error;
      }
      // defineProperty, not assignment: a key named `__proto__` stays a key, as JSON.parse keeps it.
      Object.defineProperty(out, k, { value: copied, enumerable: true, writable: true, configurable: true });
    }
    return Object.freeze(out);
  } finally {
    ancestors.pop();
  }
}
