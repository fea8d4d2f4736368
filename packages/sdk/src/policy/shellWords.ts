import type { Node } from 'web-tree-sitter';

/**
 * One word of a simple command as bash passes it to the program: after quote and escape removal
 * (docs/permissions-policy.md, "Bash's own words"). Rules compare these, never the command's text.
 */
export interface ShellWord {
  /** The word as written. */
  readonly text: string;
  /**
   * The word after quote and escape removal, or `undefined` when bash computes it at run time:
   * parameter, command, arithmetic or process expansion, a glob (`*`, `?`, `[…]`), brace or tilde
   * expansion, or a `$"…"` translation.
   */
  readonly value: string | undefined;
}

/** The words of one simple command: its leading `NAME=value` assignments, then the command's own words. */
export interface CommandWords {
  readonly assignments: readonly string[];
  readonly words: readonly ShellWord[];
  /**
   * True when tree-sitter cut a bash word in two: an "assignment" with nothing between it and
   * what follows (`1=a"b"` is one word for bash, whose names never start with a digit).
   */
  readonly misread: boolean;
}

/**
 * Characters bash does not split words on but that look like spacing or are invisible: control
 * characters other than tab and newline (`\r`, `\v`, `\f`, …), C1 controls, Unicode spaces
 * (U+00A0, U+3000, …), line and paragraph separators, zero-width and bidirectional marks, U+FEFF.
 * Outside quotes they make a line read differently from how bash runs it, so such a line is never
 * allowed by a rule.
 */
export const UNSAFE_SHELL_CHARACTERS =
  // eslint-disable-next-line no-control-regex
  /[\u0000-\u0008\u000b-\u001f\u007f-\u00a0\u00ad\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u206f\u3000\ufeff\ufff9-\ufffb]/u;

/** Nodes whose content bash takes literally (quoted text, here-document bodies). */
const QUOTED = new Set(['string', 'raw_string', 'ansi_c_string', 'translated_string', 'heredoc_body']);

/** Nodes read as one piece for {@link readsDifferently}: quoted text and comments. */
const OPAQUE = new Set([...QUOTED, 'comment']);

/** Nodes that hold a statement's redirections, not words of its command. */
const REDIRECTS = new Set(['file_redirect', 'heredoc_redirect', 'herestring_redirect']);

/**
 * True when bash may read `source` differently from `root`, its parse by tree-sitter: an
 * {@link UNSAFE_SHELL_CHARACTERS unsafe character} outside quoted text (comments count as
 * outside: fail closed), or text between tree-sitter's tokens that bash does not skip. bash skips
 * only spaces, tabs, newlines and `\`-newline continuations between words; tree-sitter also skips
 * `\r`, `\v`, `\f`, and a backslash before a space or tab at the start of a word, which bash
 * keeps as part of the word (`a\<TAB>b` is one word).
 */
export function readsDifferently(root: Node, source: string): boolean {
  const covered: Array<[number, number]> = [];
  let unsafe = false;
  const stack: Node[] = [root];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const children = node.children.filter((c): c is Node => c !== null);
    if (OPAQUE.has(node.type) || children.length === 0) {
      covered.push([node.startIndex, node.endIndex]);
      if (!QUOTED.has(node.type) && UNSAFE_SHELL_CHARACTERS.test(node.text)) unsafe = true;
      continue;
    }
    for (const child of children) stack.push(child);
  }
  if (unsafe) return true;
  covered.sort((a, b) => a[0] - b[0]);
  let from = 0;
  for (const [start, end] of covered) {
    if (start > from && !isBashBlank(source.slice(from, start))) return true;
    from = Math.max(from, end);
  }
  return !isBashBlank(source.slice(from));
}

function isBashBlank(text: string): boolean {
  return /^[ \t\n]*$/.test(text.replace(/\\\n/g, ''));
}

/**
 * The words of a `command` node. tree-sitter sometimes splits one bash word into sibling nodes
 * (`$"…"`, a `\`-newline continuation), so a word here is a run of siblings with nothing between
 * them but line continuations; any other gap is where bash splits. It also files the words that
 * follow a redirection under the redirection (`sudo >/dev/null rm -rf /`): those are taken back.
 */
export function commandWords(command: Node, source: string): CommandWords {
  const assignments: string[] = [];
  const parts: Node[] = [];
  let misread = false;
  let lastAssignmentEnd: number | undefined;
  for (const child of command.children) {
    if (!child) continue;
    if (lastAssignmentEnd === child.startIndex) misread = true;
    lastAssignmentEnd = undefined;
    if (child.type === 'variable_assignment' && parts.length === 0) {
      assignments.push(child.text);
      lastAssignmentEnd = child.endIndex;
    } else if (REDIRECTS.has(child.type)) parts.push(...wordsAfterRedirect(child));
    else if (child.type === 'command_name')
      parts.push(...child.children.filter((c): c is Node => c !== null));
    else parts.push(child);
  }
  const statement = command.parent;
  if (statement?.type === 'redirected_statement') {
    for (const child of statement.children) {
      if (child && REDIRECTS.has(child.type) && child.startIndex >= command.endIndex) {
        parts.push(...wordsAfterRedirect(child));
      }
    }
  }
  parts.sort((a, b) => a.startIndex - b.startIndex);
  const words: ShellWord[] = [];
  let run: Node[] = [];
  const flush = () => {
    if (run.length === 0) return;
    words.push(wordOf(run, source));
    run = [];
  };
  for (const part of parts) {
    const previous = run.at(-1);
    if (previous && source.slice(previous.endIndex, part.startIndex).replace(/\\\n/g, '') !== '') flush();
    run.push(part);
  }
  flush();
  return { assignments, words, misread };
}

const REDIRECT_PARTS = new Set(['file_descriptor', 'heredoc_start', 'heredoc_body', 'heredoc_end']);

/** The nodes tree-sitter puts inside a redirection after its target: words of the command. */
function wordsAfterRedirect(redirect: Node): Node[] {
  const args = redirect.children.filter(
    (c): c is Node => c !== null && c.isNamed && !REDIRECT_PARTS.has(c.type),
  );
  // A here-document's target is its delimiter (`heredoc_start`); the others' is their first argument.
  return redirect.type === 'heredoc_redirect' ? args : args.slice(1);
}

/** Builds one word from adjacent nodes: its text, and its value unless bash computes it. */
function wordOf(nodes: readonly Node[], source: string): ShellWord {
  const text = source.slice(nodes[0]!.startIndex, nodes.at(-1)!.endIndex);
  const pieces: Piece[] = [];
  let computed = false;
  for (const node of nodes) {
    if (!collect(node, pieces)) computed = true;
  }
  if (computed) return { text, value: undefined };
  // The unquoted characters decide whether bash expands the word: globs, braces, a tilde.
  const skeleton = pieces.map((p) => (p.quoted ? '\u0000'.repeat(p.value.length) : p.value)).join('');
  if (expands(skeleton)) return { text, value: undefined };
  return { text, value: pieces.map((p) => p.value).join('') };
}

interface Piece {
  readonly value: string;
  /** Quoted or escaped characters never expand. */
  readonly quoted: boolean;
}

/** Adds the pieces of `node` to `pieces`; false when the node is computed at run time. */
function collect(node: Node, pieces: Piece[]): boolean {
  switch (node.type) {
    case 'word':
    case 'number':
      unquoted(node.text, pieces);
      return true;
    case 'raw_string':
      pieces.push({ value: node.text.slice(1, -1), quoted: true });
      return true;
    case 'ansi_c_string':
      pieces.push({ value: decodeAnsiC(node.text.slice(2, -1)), quoted: true });
      return true;
    case 'string':
      if (node.children.some((child) => child?.isNamed && child.type !== 'string_content')) return false;
      // From the text itself: tree-sitter's `string_content` skips a leading `\r` and the like.
      pieces.push({ value: doubleQuoted(node.text.slice(1, -1)), quoted: true });
      return true;
    case 'concatenation':
      return node.children.every((child) => child !== null && collect(child, pieces));
    default:
      // Expansions, substitutions, `$"…"`, brace sequences and anything unknown.
      return false;
  }
}

/** Unquoted text: a backslash quotes the next character, and `\`-newline disappears. */
function unquoted(text: string, pieces: Piece[]): void {
  let plain = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c !== '\\' || i + 1 >= text.length) {
      plain += c;
      continue;
    }
    const next = text[++i]!;
    if (plain) pieces.push({ value: plain, quoted: false });
    plain = '';
    if (next !== '\n') pieces.push({ value: next, quoted: true });
  }
  if (plain) pieces.push({ value: plain, quoted: false });
}

/** Inside double quotes a backslash only quotes `$`, a backquote, `"`, `\` and newline. */
function doubleQuoted(text: string): string {
  return text.replace(/\\([$`"\\\n])/g, (_, c: string) => (c === '\n' ? '' : c));
}

/**
 * True when unquoted characters make bash expand the word (quoted ones are NUL in `skeleton`): a
 * glob (`*`, `?`, `[…]`), a brace expansion (`{a,b}`, `{1..3}`) or a tilde. One pass each, so a
 * word of 60,000 `[` costs no more than its length.
 */
function expands(skeleton: string): boolean {
  if (skeleton.includes('*') || skeleton.includes('?')) return true;
  const open = skeleton.indexOf('[');
  if (open !== -1 && skeleton.indexOf(']', open + 1) !== -1) return true;
  if (bracesExpand(skeleton)) return true;
  return /(^|[=:])~/.test(skeleton);
}

/** A `{…}` with no brace inside that holds `,` or `..`. */
function bracesExpand(skeleton: string): boolean {
  let open = false;
  let list = false;
  for (let i = 0; i < skeleton.length; i++) {
    const c = skeleton[i];
    if (c === '{') {
      open = true;
      list = false;
    } else if (c === '}') {
      if (open && list) return true;
      open = false;
    } else if (open && (c === ',' || (c === '.' && skeleton[i + 1] === '.'))) {
      list = true;
    }
  }
  return false;
}

/** Escapes of `$'…'` that bash decodes to one fixed character (the grammar refuses every other). */
export const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/**
 * The value of a `$'…'` string (bash's ANSI-C quoting), as bash reads it: a NUL (`\0`, `\c@`,
 * `\x0`, `\u0000`) ends the string, since bash keeps C strings (`rm$'\0x'` is `rm`). One pass.
 */
export function decodeAnsiC(body: string): string {
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i]!;
    if (c !== '\\' || i + 1 >= body.length) {
      out += c;
      continue;
    }
    const e = body[++i]!;
    let code: number | undefined;
    if (Object.hasOwn(SIMPLE_ESCAPES, e)) {
      out += SIMPLE_ESCAPES[e];
      continue;
    } else if (e >= '0' && e <= '7') {
      const end = digitsEnd(body, i, 3, 8);
      code = parseInt(body.slice(i, end), 8) & 0xff;
      i = end - 1;
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const end = digitsEnd(body, i + 1, e === 'x' ? 2 : e === 'u' ? 4 : 8, 16);
      if (end === i + 1) {
        out += `\\${e}`;
        continue;
      }
      code = parseInt(body.slice(i + 1, end), 16);
      i = end - 1;
    } else if (e === 'c' && i + 1 < body.length) {
      const x = body[++i]!;
      if (x === '\\' && body[i + 1] === '\\') i++;
      code = x === '?' ? 0x7f : x.toUpperCase().charCodeAt(0) & 0x1f;
    } else {
      out += `\\${e}`;
      continue;
    }
    if (code === 0) return out;
    out += code <= 0x10ffff ? String.fromCodePoint(code) : '';
  }
  return out;
}

/** The end of the run of at most `max` digits of `radix` (8 or 16) from `from`. */
function digitsEnd(text: string, from: number, max: number, radix: 8 | 16): number {
  let end = from;
  while (end < text.length && end - from < max && isDigitOf(text[end]!, radix)) end++;
  return end;
}

function isDigitOf(c: string, radix: 8 | 16): boolean {
  if (radix === 8) return c >= '0' && c <= '7';
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
