import { SdkError } from '../errors.js';
import { DEFAULT_SECRET_DETECTORS } from './secretDetectors.js';
import { encodedForms } from './secretForms.js';
import type { SecretDetector, SecretMatch } from './secretDetectors.js';

/** A value the program knows is secret, with the kind its marker names (default `registered`). */
export type RegisteredSecret = string | { readonly value: string; readonly kind?: string };

/** The writer's `redact` option (docs/redaction.md). */
export interface RedactOptions {
  /** The detector table; default {@link DEFAULT_SECRET_DETECTORS}. */
  readonly detectors?: readonly SecretDetector[];
  /** Values to redact wherever they appear, such as those loaded from `.env`. */
  readonly values?: Iterable<RegisteredSecret>;
  /** The text that replaces a secret; default `[redacted:<kind>]`. */
  readonly marker?: (kind: string) => string;
}

/** How many secrets of each kind were redacted. */
export type RedactionCounts = Readonly<Record<string, number>>;

/** Registered values shorter than this would blank out ordinary words. */
export const MIN_REGISTERED_SECRET_LENGTH = 6;

/**
 * Fields of a message that are structure, not content: ids, enums, sizes, refs and thumbhashes are
 * never scanned (a cuid or a thumbhash could look random to the entropy detector).
 */
const STRUCTURAL_FIELDS = new Set([
  'id',
  'time',
  'role',
  'type',
  'turn',
  'callId',
  'parentId',
  'agentId',
  'status',
  'optionId',
  'via',
  'ref',
  'thumbhash',
  'mimeType',
  'width',
  'height',
  'durationMs',
  'size',
]);

interface CompiledDetector {
  readonly kind: string;
  /** Lower-case literals one of which the text must contain for `find` to run. */
  readonly hints: readonly string[] | undefined;
  find(text: string): Iterable<SecretMatch>;
}

/** Each hint of the table with the detectors (by index) it lets run. */
type HintIndex = ReadonlyArray<readonly [hint: string, detectors: readonly number[]]>;

/** A secret found in a string, with the kind its marker names. */
interface Found extends SecretMatch {
  readonly kind: string;
}

/**
 * Replaces secrets in the string fields of a message with a marker naming their kind: every string
 * of the content, at any depth of `args`, except the structural fields. Used by the writer before
 * validation and encryption, so a secret never reaches the server, the app or the history.
 *
 * Everything that can be prepared is prepared once: the detectors' patterns, the index of their
 * hints and one pattern of all hints. A string with no hint in it (most of them) then costs one
 * scan of that pattern and allocates nothing, and a value with no secret in it comes back as it
 * was given, without a copy (docs/performance.md, "Cutting the client's CPU per message").
 */
export class Redactor {
  private readonly detectors: readonly CompiledDetector[];
  private readonly marker: (kind: string) => string;
  private readonly hints: HintIndex;
  /** Any hint of the table, case-insensitively: most strings have none, and one scan says so. */
  private readonly anyHint: RegExp | undefined;
  /** Whether each detector runs on every string (it has no hints). */
  private readonly always: readonly boolean[];
  /** Whether any detector runs on every string; known on first use. */
  private anyAlways: boolean | undefined;
  /** Which detectors run on the string at hand, reused from string to string; made on first use. */
  private runs: Uint8Array | undefined;
  private readonly registered = new Map<string, string>();
  private readonly tally = new Map<string, number>();

  constructor(options: RedactOptions = {}) {
    const table = preparedTable(options.detectors ?? DEFAULT_SECRET_DETECTORS);
    this.detectors = table.detectors;
    this.hints = table.hints;
    this.anyHint = table.anyHint;
    this.always = table.always;
    this.marker = options.marker ?? ((kind) => `[redacted:${kind}]`);
    for (const secret of options.values ?? []) this.register(secret);
  }

  /**
   * Adds values to redact wherever they appear. Throws `SdkError` `stream.secret_too_short` for a
   * value shorter than {@link MIN_REGISTERED_SECRET_LENGTH} characters.
   */
  register(secret: RegisteredSecret): void {
    const { value, kind } = typeof secret === 'string' ? { value: secret, kind: undefined } : secret;
    if (typeof value !== 'string' || value.length < MIN_REGISTERED_SECRET_LENGTH) {
      throw new SdkError(
        'stream.secret_too_short',
        `A registered secret must be a string of at least ${MIN_REGISTERED_SECRET_LENGTH} characters.`,
        { hint: 'register only real secret values (tokens, passwords), not short settings such as ports' },
      );
    }
    this.registered.set(value, kind ?? 'registered');
    // Its encoded forms under the same kind; a value registered as itself keeps its own kind.
    for (const form of encodedForms(value)) {
      if (form.length >= MIN_REGISTERED_SECRET_LENGTH && !this.registered.has(form))
        this.registered.set(form, kind ?? 'registered');
    }
  }

  /** Counts of what has been redacted so far, by kind. */
  get counts(): RedactionCounts {
    return Object.fromEntries(this.tally);
  }

  /**
   * A message with its content strings redacted; counts what it replaced. The message itself when
   * nothing in it is a secret.
   */
  redactMessage<T extends object>(message: T): T {
    const input = message as Record<string, unknown>;
    let out: Record<string, unknown> | undefined;
    for (const key in input) {
      if (!Object.prototype.hasOwnProperty.call(input, key) || STRUCTURAL_FIELDS.has(key)) continue;
      const value = input[key];
      const redacted =
        key === 'options' && Array.isArray(value) ? this.redactOptions(value) : this.redactValue(value, true);
      if (redacted === value) continue;
      out ??= { ...input };
      out[key] = redacted;
    }
    return (out ?? message) as T;
  }

  /**
   * Any JSON-like value with its strings redacted; `count: false` leaves the counts alone. The
   * value itself (not a copy) when nothing in it is a secret; a copy of each array and plain
   * object on the way to one that is.
   */
  redactValue<T>(value: T, count = false): T {
    if (typeof value === 'string') return this.redactString(value, count) as T;
    if (Array.isArray(value)) {
      let out: unknown[] | undefined;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const redacted = this.redactValue(item, count);
        if (redacted === item) continue;
        out ??= value.slice();
        out[i] = redacted;
      }
      return (out ?? value) as T;
    }
    if (isPlainObject(value)) {
      let out: Record<string, unknown> | undefined;
      for (const key in value) {
        if (!Object.prototype.hasOwnProperty.call(value, key)) continue;
        const item = value[key];
        const redacted = this.redactValue(item, count);
        if (redacted === item) continue;
        out ??= { ...value };
        out[key] = redacted;
      }
      return (out ?? value) as T;
    }
    return value;
  }

  /** A permission request's options with their labels redacted (the rest is structure). */
  private redactOptions(options: readonly unknown[]): readonly unknown[] {
    let out: unknown[] | undefined;
    for (let i = 0; i < options.length; i++) {
      const option = options[i];
      if (typeof option !== 'object' || option === null) continue;
      const { label } = option as { label?: unknown };
      if (typeof label !== 'string') continue;
      const redacted = this.redactString(label, true);
      if (redacted === label) continue;
      out ??= options.slice();
      out[i] = { ...option, label: redacted };
    }
    return out ?? options;
  }

  private redactString(text: string, count: boolean): string {
    let found: Found[] | undefined;
    if (this.registered.size > 0) {
      for (const [value, kind] of this.registered) {
        for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + value.length)) {
          (found ??= []).push({ start: at, end: at + value.length, kind });
        }
      }
    }
    const hinted = this.anyHint?.test(text) === true;
    if (hinted || (this.anyAlways ??= this.always.includes(true))) found = this.detect(text, hinted, found);
    if (found === undefined) return text;
    // Earliest first, the longest of those that start together; overlaps go to the first.
    found.sort((a, b) => a.start - b.start || b.end - a.end);
    let out = '';
    let at = 0;
    for (const match of found) {
      if (match.start < at) continue;
      out += text.slice(at, match.start) + this.marker(match.kind);
      at = match.end;
      if (count) this.tally.set(match.kind, (this.tally.get(match.kind) ?? 0) + 1);
    }
    return out + text.slice(at);
  }

  /**
   * Runs the detectors that apply to `text`: those without hints, and (when `hinted`) those one of
   * whose hints it contains, each hint looked for once. Adds what they find to `found`.
   */
  private detect(text: string, hinted: boolean, found: Found[] | undefined): Found[] | undefined {
    const { detectors, always } = this;
    const runs = (this.runs ??= new Uint8Array(detectors.length));
    if (hinted) {
      const lower = text.toLowerCase();
      for (const [hint, indexes] of this.hints) {
        if (lower.includes(hint)) for (const d of indexes) runs[d] = 1;
      }
    }
    for (let d = 0; d < detectors.length; d++) {
      if (runs[d] === 0 && !always[d]) continue;
      runs[d] = 0;
      const detector = detectors[d]!;
      for (const match of detector.find(text)) {
        if (match.end > match.start) (found ??= []).push({ ...match, kind: detector.kind });
      }
    }
    return found;
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A detector table ready to run: compiled, its hints indexed. */
interface PreparedTable {
  readonly detectors: readonly CompiledDetector[];
  readonly hints: HintIndex;
  readonly anyHint: RegExp | undefined;
  readonly always: readonly boolean[];
}

/** Prepared tables by detector table: every writer of a process shares the default one's. */
const preparedTables = new WeakMap<readonly SecretDetector[], PreparedTable>();

/**
 * A detector table prepared once per process, not once per writer: a host of a thousand sessions
 * would otherwise hold a thousand copies (docs/transport.md, "One socket per account"). Sharing is
 * safe, as nothing of it changes once made and `find` keeps no state between calls (`matchAll`
 * works on a copy of the pattern, `anyHint` has no `g` flag).
 */
function preparedTable(table: readonly SecretDetector[]): PreparedTable {
  const known = preparedTables.get(table);
  if (known) return known;
  const detectors = table.map(compile);
  const hints = indexHints(detectors);
  const prepared: PreparedTable = {
    detectors,
    hints,
    anyHint:
      hints.length > 0
        ? new RegExp(hints.map(([hint]) => hint.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'i')
        : undefined,
    always: detectors.map((d) => d.hints === undefined),
  };
  preparedTables.set(table, prepared);
  return prepared;
}

function indexHints(detectors: readonly CompiledDetector[]): HintIndex {
  const index = new Map<string, number[]>();
  detectors.forEach((detector, d) => {
    for (const hint of detector.hints ?? []) index.set(hint, [...(index.get(hint) ?? []), d]);
  });
  return [...index];
}

/**
 * A detector row as a `find` function; a pattern gets the `g` flag, and the `d` flag when only a
 * group of the match is the secret (indices cost time, so a whole match goes without).
 */
function compile(detector: SecretDetector): CompiledDetector {
  if ('find' in detector)
    return { kind: detector.kind, hints: undefined, find: (text) => detector.find(text) };
  const group = detector.group ?? 0;
  const flags = new Set([...detector.pattern.flags, 'g', ...(group === 0 ? [] : ['d'])]);
  const pattern = new RegExp(detector.pattern.source, [...flags].join(''));
  return {
    kind: detector.kind,
    hints: detector.hints?.map((hint) => hint.toLowerCase()),
    find(text: string): SecretMatch[] {
      const matches: SecretMatch[] = [];
      for (const match of text.matchAll(pattern)) {
        if (group === 0) {
          matches.push({ start: match.index, end: match.index + match[0].length });
          continue;
        }
        const span = match.indices?.[group];
        if (span) matches.push({ start: span[0], end: span[1] });
      }
      return matches;
    },
  };
}

/** Variable names whose values are usually secrets. */
const SECRET_NAME =
  /(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|PWD|CREDENTIALS?|AUTH|PRIVATE|DSN|DATABASE_URL|CONN)/i;

/**
 * The values of an environment (or a parsed `.env`) worth registering as secrets: those whose
 * name says they are one (`*_KEY`, `*_TOKEN`, `*_SECRET`, `*PASSWORD*`, `DATABASE_URL`, ...) and
 * that are long enough to register. Names can be given explicitly instead.
 *
 * @example
 * writer.registerSecrets(secretValuesOf(process.env));
 */
export function secretValuesOf(
  env: Readonly<Record<string, string | undefined>>,
  options: { readonly names?: RegExp | readonly string[] } = {},
): RegisteredSecret[] {
  const { names } = options;
  const wanted = (name: string): boolean =>
    names === undefined
      ? SECRET_NAME.test(name)
      : Array.isArray(names)
        ? names.includes(name)
        : (names as RegExp).test(name);
  return Object.entries(env)
    .filter(
      ([name, value]) => wanted(name) && value !== undefined && value.length >= MIN_REGISTERED_SECRET_LENGTH,
    )
    .map(([name, value]) => ({ value: value!, kind: `env:${name}` }));
}
