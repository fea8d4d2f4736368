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
  return walk(value, '', [], new Set());
}

function walk(
  input: unknown,
  key: string,
  path: (string | number)[],
  ancestors: Set<object>,
): NonJsonValue | undefined {
  let value = input;
  if (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { toJSON?: unknown }).toJSON === 'function'
  ) {
    value = (value as { toJSON: (key: string) => unknown }).toJSON(key);
  }
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return undefined;
    case 'number':
      return Number.isFinite(value) ? undefined : { path, found: String(value) };
    case 'bigint':
      return { path, found: 'a BigInt' };
    case 'function':
      return { path, found: 'a function' };
    case 'symbol':
      return { path, found: 'a symbol' };
    case 'undefined':
      return { path, found: 'undefined' };
  }
  if (value === null) return undefined;
  const object = value as object;
  if (object instanceof Map || object instanceof Set) {
    return { path, found: `a ${object instanceof Map ? 'Map' : 'Set'}` };
  }
  if (ancestors.has(object)) return { path, found: 'a circular reference' };
  ancestors.add(object);
  try {
    if (Array.isArray(object)) {
      for (let i = 0; i < object.length; i++) {
        // A hole reads as undefined: JSON writes it as null.
        const problem = walk(object[i], String(i), [...path, i], ancestors);
        if (problem) return problem;
      }
      return undefined;
    }
    for (const [k, v] of Object.entries(object)) {
      if (v === undefined) continue;
      const problem = walk(v, k, [...path, k], ancestors);
      if (problem) return problem;
    }
    return undefined;
  } finally {
    ancestors.delete(object);
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
