/** Deepest nesting of arguments an exact-call rule is written for. */
const MAX_DEPTH = 64;

/**
 * The canonical JSON text of a call's arguments, as an exact-call rule `Tool{…}` holds them
 * (docs/permissions-policy.md, "Session rules"): object keys sorted, no whitespace, every character
 * outside printable ASCII written as `\uXXXX`, so the text shows exactly what it holds. Two
 * argument objects have the same text only when they are the same JSON value.
 *
 * `undefined` when `args` is not a plain JSON object (a non-finite number, `undefined`, a class
 * instance, a cycle, nesting deeper than 64), or when its text would be longer than `maxLength`:
 * no exact rule can be written for it. The work stops at `maxLength`, so matching a call against
 * a rule costs no more than the rule's length.
 */
export function canonicalArgs(args: unknown, maxLength = Number.POSITIVE_INFINITY): string | undefined {
  if (!isPlainObject(args)) return undefined;
  const text = new Text(maxLength);
  return write(args, text, 0, new Set()) ? text.parts.join('') : undefined;
}

/** The canonical text written so far, refusing to grow past its limit. */
class Text {
  readonly parts: string[] = [];
  #length = 0;
  constructor(readonly max: number) {}

  /** Appends `part`; false when that would pass the limit. */
  push(part: string): boolean {
    this.#length += part.length;
    this.parts.push(part);
    return this.#length <= this.max;
  }

  /** True when at least `n` more characters still fit. */
  fits(n: number): boolean {
    return this.#length + n <= this.max;
  }
}

function write(value: unknown, text: Text, depth: number, open: Set<object>): boolean {
  if (value === null || typeof value === 'boolean') return text.push(String(value));
  if (typeof value === 'number') return Number.isFinite(value) && text.push(JSON.stringify(value));
  if (typeof value === 'string') return text.fits(value.length + 2) && text.push(quote(value));
  if (typeof value !== 'object' || depth >= MAX_DEPTH || open.has(value)) return false;
  open.add(value);
  let fine = true;
  if (Array.isArray(value)) {
    fine = text.push('[');
    // Index by index: a hole reads as `undefined`, which has no JSON text.
    for (let i = 0; fine && i < value.length; i++) {
      fine = (i === 0 || text.push(',')) && write(value[i], text, depth + 1, open);
    }
    fine = fine && text.push(']');
  } else if (isPlainObject(value)) {
    const keys = Object.keys(value);
    // Each member takes at least four characters (`"":0`); do not sort what cannot fit.
    fine = text.fits(keys.length * 4) && text.push('{');
    if (fine) keys.sort();
    for (let i = 0; fine && i < keys.length; i++) {
      const key = keys[i]!;
      fine =
        (i === 0 || text.push(',')) &&
        text.fits(key.length + 3) &&
        text.push(`${quote(key)}:`) &&
        write(value[key], text, depth + 1, open);
    }
    fine = fine && text.push('}');
  } else {
    fine = false;
  }
  open.delete(value);
  return fine;
}

/** A JSON string literal holding only printable ASCII. */
function quote(text: string): string {
  return JSON.stringify(text).replace(
    /[^\x20-\x7e]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}
