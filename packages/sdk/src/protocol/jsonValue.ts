/** Where a value stops being JSON, and why. */
export interface NonJsonValue {
  /** Path from the root, e.g. `['args', 'list', 2]`. */
  readonly path: readonly (string | number)[];
  /** What is there, e.g. `a BigInt`. */
  readonly found: string;
}

/**
 * The first place where `value` is not JSON that reads back as written, depth first: a BigInt
 * (`JSON.stringify` throws), a cycle (it throws), a function or a symbol (dropped, or `null` in an
 * array), `NaN` or ±Infinity (written as `null`), `undefined` or a hole in an array (written as
 * `null`), a Map or a Set (written as `{}`). `toJSON()` is honoured as `JSON.stringify` honours it;
 * an `undefined` property is left out, as JSON leaves it out. Undefined when the value is fine.
 */
export function findNonJson(value: unknown): NonJsonValue | undefined {
  const problem = walk(value, '', []);
  return problem && { path: problem.reversedPath.reverse(), found: problem.found };
}

/**
 * A problem found by {@link walk}; each level adds its key on the way back up, so a value that is
 * fine (every message the writer appends) costs no path arrays (docs/performance.md).
 */
interface Problem {
  readonly reversedPath: (string | number)[];
  readonly found: string;
}

const problemOf = (found: string): Problem => ({ reversedPath: [], found });

/** `problem`, found under `key` of the level above. */
function within(problem: Problem, key: string | number): Problem {
  problem.reversedPath.push(key);
  return problem;
}

function walk(input: unknown, key: string | number, ancestors: object[]): Problem | undefined {
  let value = input;
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  ) {
    value = (value as { toJSON: (key: string) => unknown }).toJSON(String(key));
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : problemOf(String(value));
    case 'bigint':
      return problemOf('a BigInt');
    case 'function':
      return problemOf('a function');
    case 'symbol':
      return problemOf('a symbol');
    case 'undefined':
      return problemOf('undefined');
  }
  if (value === null) return undefined;
  const object = value as Record<string, unknown>;
  if (object instanceof Map || object instanceof Set) {
    return problemOf(`a ${object instanceof Map ? 'Map' : 'Set'}`);
  }
  // The objects on the way down (a few levels): a cycle is one of them met again.
  if (ancestors.includes(object)) return problemOf('a circular reference');
  ancestors.push(object);
  try {
    if (Array.isArray(object)) {
      for (let i = 0; i < object.length; i++) {
        // A hole reads as undefined: JSON writes it as null.
        const problem = walk(object[i], i, ancestors);
        if (problem) return within(problem, i);
      }
      return undefined;
    }
    // Own enumerable string keys, in Object.keys order, as JSON.stringify takes them.
    for (const k in object) {
      if (!Object.prototype.hasOwnProperty.call(object, k)) continue;
      const v = object[k];
      if (v === undefined) continue;
      const problem = walk(v, k, ancestors);
      if (problem) return within(problem, k);
    }
    return undefined;
  } finally {
    ancestors.pop();
  }
}

/** A path as people write it: `args.list[2]`, or `(root)`. */
export function formatPath(path: readonly (string | number)[]): string {
  if (path.length === 0) return '(root)';
  return path
    .map((p, i) =>
      typeof p === 'number'
        ? `[${p}]`
        : /^[A-Za-z_$][\w$]*$/.test(p)
          ? i === 0
            ? p
            : `.${p}`
          : `[${JSON.stringify(p)}]`,
    )
    .join('');
}
