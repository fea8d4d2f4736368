import type { ShellWord } from './shellWords.js';
import { SIMPLE_ESCAPES, UNSAFE_SHELL_CHARACTERS } from './shellWords.js';

/**
 * The one place that decides whether a Bash line may be allowed without asking
 * (docs/permissions-policy.md, "The grammar a line must be in to be allowed"): a small grammar the
 * policy reads exactly as bash does. A rule or a mode allows a line only when this reader accepts
 * it; every other line asks (only an exact rule for that very text may still allow it).
 *
 * Accepted: simple commands joined by `;`, newline, `&&`, `||` and `|`; every word static (a
 * literal after quote removal) or holding plain parameter references (`$NAME`, `${NAME}`); no
 * expansion that computes anything else; redirections only to or from `/dev/null` and fd
 * duplications; no reserved word, assignment, or builtin that turns its arguments into code.
 * Everything else is refused with a reason. One pass over the line, no regular expression with a
 * quantifier on user text, and the line's length is capped before it is read.
 */
export type GrammarLine =
  | { readonly ok: true; readonly commands: readonly GrammarCommand[] }
  | { readonly ok: false; readonly reason: string };

/** One simple command of an accepted line. */
export interface GrammarCommand {
  /** Its words as bash passes them; `value` is `undefined` for a word holding a parameter reference. */
  readonly words: readonly ShellWord[];
}

/** Longest line the grammar reads; a longer one is refused before any character is looked at. */
export const MAX_GRAMMAR_LINE_LENGTH = 16 * 1024;

/** Most simple commands a line of the grammar holds; a line with more is refused. */
export const MAX_GRAMMAR_COMMANDS = 128;

/** Words bash reads as reserved in command position, and the prefixes that take a pipeline. */
export const RESERVED_WORDS: ReadonlySet<string> = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'case',
  'esac',
  'for',
  'select',
  'while',
  'until',
  'do',
  'done',
  'in',
  'function',
  'time',
  'coproc',
  '{',
  '}',
  '!',
  '[[',
  ']]',
]);

/**
 * Builtins that evaluate an argument as code (arithmetic in an array subscript included:
 * `read 'a[$(id)]'`, `declare`, `unset`, `let`), run a string or a file, or change how later
 * commands are read (`set`, `shopt`, `alias`, `trap`, `enable -f`). Never allowed without asking.
 */
const EVALUATING_BUILTINS = new Set([
  'eval',
  'source',
  '.',
  'let',
  'declare',
  'typeset',
  'local',
  'export',
  'readonly',
  'unset',
  'read',
  'mapfile',
  'readarray',
  'getopts',
  'wait',
  'trap',
  'complete',
  'compgen',
  'compopt',
  'bind',
  'enable',
  'alias',
  'unalias',
  'fc',
  'hash',
  'history',
  'shopt',
  'set',
  'exec',
]);

/** Unquoted characters that stand for themselves. Every other character outside quotes is refused. */
function isPlain(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) || // a-z
    (code >= 0x41 && code <= 0x5a) || // A-Z
    (code >= 0x30 && code <= 0x39) || // 0-9
    code === 0x5f || // _
    code === 0x2e || // .
    code === 0x2f || // /
    code === 0x3a || // :
    code === 0x3d || // =
    code === 0x2c || // ,
    code === 0x25 || // %
    code === 0x2b || // +
    code === 0x40 || // @
    code === 0x2d || // -
    code === 0x23 // # (a comment only where a word starts)
  );
}

function isNameStart(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || code === 0x5f;
}

function isNameChar(code: number): boolean {
  return isNameStart(code) || (code >= 0x30 && code <= 0x39);
}

type Separator = 'start' | ';' | '\n' | '&&' | '||' | '|';

class Refused {
  constructor(readonly reason: string) {}
}

/** Reads `line` by the grammar: its simple commands and their words, or why it is not in it. */
export function readBashLine(line: string): GrammarLine {
  return readWith(line, true);
}

/**
 * The words of a `Bash(…)` rule's command, read by the same grammar but without the checks on
 * what a command is (a rule `Bash(printf:*)` names `printf` without its arguments, and the line it
 * is matched against is checked whole by {@link readBashLine}).
 */
export function readRuleCommand(command: string): GrammarLine {
  return readWith(command, false);
}

function readWith(line: string, checkCommands: boolean): GrammarLine {
  if (line.length > MAX_GRAMMAR_LINE_LENGTH) return { ok: false, reason: 'the line is too long' };
  const characters = unsafeCharacters(line);
  if (characters !== undefined) return { ok: false, reason: characters };
  try {
    return { ok: true, commands: new Reader(line, checkCommands).read() };
  } catch (e) {
    if (e instanceof Refused) return { ok: false, reason: e.reason };
    throw e;
  }
}

/**
 * Why `text` holds characters that show differently from what bash reads, if it does: control
 * characters other than tab and newline, NUL, Unicode spaces, zero-width and bidirectional marks,
 * or a lone surrogate (which no program receives as written). One pass.
 */
export function unsafeCharacters(text: string): string | undefined {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return 'the line holds a lone surrogate';
    }
    if (code >= 0xdc00 && code <= 0xdfff) return 'the line holds a lone surrogate';
    if ((code < 0x20 || code >= 0x7f) && UNSAFE_SHELL_CHARACTERS.test(text.charAt(i)))
      return 'the line holds a control character, an invisible mark or a Unicode space';
  }
  return undefined;
}

interface Pending {
  words: ShellWord[];
  redirections: number;
}

class Reader {
  private i = 0;
  private readonly commands: GrammarCommand[] = [];
  private current: Pending = { words: [], redirections: 0 };
  private last: Separator = 'start';

  constructor(
    private readonly line: string,
    private readonly checkCommands: boolean,
  ) {}

  read(): GrammarCommand[] {
    const line = this.line;
    while (this.i < line.length) {
      const c = line[this.i]!;
      if (c === ' ' || c === '\t') {
        this.i++;
      } else if (c === '\\' && line[this.i + 1] === '\n') {
        this.i += 2;
      } else if (c === '\n') {
        this.separate('\n');
        this.i++;
      } else if (c === '#') {
        while (this.i < line.length && line[this.i] !== '\n') this.i++;
      } else if (c === ';') {
        if (line[this.i + 1] === ';' || line[this.i + 1] === '&')
          throw new Refused('`;;` and `;&` are case syntax');
        this.separate(';');
        this.i++;
      } else if (c === '&') {
        if (line[this.i + 1] === '&') {
          this.separate('&&');
          this.i += 2;
        } else if (line[this.i + 1] === '>') {
          this.redirect(undefined);
        } else {
          throw new Refused('`&` runs a command in the background');
        }
      } else if (c === '|') {
        if (line[this.i + 1] === '|') {
          this.separate('||');
          this.i += 2;
        } else if (line[this.i + 1] === '&') {
          throw new Refused('`|&` is not in the grammar');
        } else {
          this.separate('|');
          this.i++;
        }
      } else if (c === '<' || c === '>') {
        this.redirect(undefined);
      } else if (c === '(' || c === ')') {
        throw new Refused('subshells, functions and `((…))` are not in the grammar');
      } else {
        const start = this.i;
        const word = this.word();
        const next = line[this.i];
        if ((next === '<' || next === '>') && word.digits) {
          this.redirect(line.slice(start, this.i));
        } else {
          this.addWord(word, this.current.words.length === 0);
        }
      }
    }
    this.separate('\n');
    if (this.last === '&&' || this.last === '||' || this.last === '|')
      throw new Refused('the line ends in an operator');
    if (this.commands.length === 0) throw new Refused('the line runs no command');
    return this.commands;
  }

  /** Ends the command before a separator; only a newline may follow nothing. */
  private separate(separator: Separator): void {
    const { words, redirections } = this.current;
    if (words.length === 0) {
      if (redirections > 0) throw new Refused('a redirection without a command');
      // Blank lines are fine, and `a &&` may go on on the next line; `;`, `&&`, `||` and `|`
      // need a command before them.
      if (separator === '\n') return;
      throw new Refused(`\`${separator}\` without a command before it`);
    }
    if (this.commands.length >= MAX_GRAMMAR_COMMANDS) throw new Refused('the line holds too many commands');
    this.commands.push(this.command(words));
    this.current = { words: [], redirections: 0 };
    this.last = separator;
  }

  private command(words: ShellWord[]): GrammarCommand {
    const value = words[0]!.value;
    if (value === undefined) throw new Refused('the command name is computed when it runs');
    if (!this.checkCommands) return { words };
    if (RESERVED_WORDS.has(value)) throw new Refused(`\`${value}\` is a reserved word`);
    if (EVALUATING_BUILTINS.has(value))
      throw new Refused(`the builtin \`${value}\` can run its arguments as code`);
    const args = words.slice(1);
    if ((value === 'command' || value === 'builtin') && !(args[0]?.value === '-v' || args[0]?.value === '-V'))
      throw new Refused(`\`${value}\` runs a builtin whose arguments are not checked`);
    if (value === 'printf' && args[0]?.value?.startsWith('-') !== false)
      throw new Refused('`printf` with an option (`-v` assigns through a subscript)');
    // A computed argument may be `-v` (and an unquoted `$X` may split into `-v 'a[$(id)]'`).
    const evaluates = (w: ShellWord): boolean =>
      w.value === undefined || w.value === '-v' || w.value === '-R';
    if ((value === 'test' || value === '[') && args.some(evaluates))
      throw new Refused('`test -v` evaluates a subscript');
    return { words };
  }

  private addWord(word: ReadWord, first: boolean): void {
    if (first && word.assignment) throw new Refused('an assignment before or instead of a command');
    this.current.words.push({ text: word.text, value: word.value });
  }

  /** A redirection at `this.i` (after its fd number, if any): only to `/dev/null` or an fd. */
  private redirect(fd: string | undefined): void {
    const line = this.line;
    let operator = line[this.i]!;
    this.i++;
    while (this.i < line.length && '<>&|'.includes(line[this.i]!) && operator.length < 3) {
      operator += line[this.i];
      this.i++;
    }
    while (line[this.i] === ' ' || line[this.i] === '\t') this.i++;
    const start = this.i;
    const target = this.i < line.length && !' \t\n;&|<>()'.includes(line[this.i]!) ? this.word() : undefined;
    const value = target?.value;
    if (value === undefined) throw new Refused(`the redirection ${operator} has no static target`);
    const duplicates = operator === '>&' || operator === '<&';
    if (duplicates && isFdTarget(value) && target!.text === value) {
      this.current.redirections++;
      return;
    }
    if (duplicates && fd !== undefined && value === '/dev/null')
      throw new Refused(`${fd}${operator} takes an fd, not a file`);
    const writes = ['>', '>>', '&>', '&>>', '>|', '>&'];
    if ((writes.includes(operator) || operator === '<') && value === '/dev/null') {
      this.current.redirections++;
      return;
    }
    throw new Refused(`the redirection ${operator}${line.slice(start, this.i)} reads or writes a file`);
  }

  /** One word from `this.i`, up to the next blank or operator. */
  private word(): ReadWord {
    const line = this.line;
    const start = this.i;
    let value = '';
    let computed = false;
    let plainOnly = true;
    let assignment = false;
    while (this.i < line.length) {
      const c = line[this.i]!;
      const code = line.charCodeAt(this.i);
      if (c === ' ' || c === '\t' || c === '\n' || ';&|<>()'.includes(c)) break;
      if (c === "'") {
        plainOnly = false;
        const end = line.indexOf("'", this.i + 1);
        if (end === -1) throw new Refused('an unterminated single quote');
        value += line.slice(this.i + 1, end);
        this.i = end + 1;
      } else if (c === '"') {
        plainOnly = false;
        const inner = this.doubleQuoted();
        if (inner === undefined) computed = true;
        else value += inner;
      } else if (c === '$') {
        plainOnly = false;
        if (line[this.i + 1] === "'") {
          value += this.ansiC();
        } else {
          this.parameter();
          computed = true;
        }
      } else if (c === '\\') {
        plainOnly = false;
        const next = line[this.i + 1];
        if (next === undefined) throw new Refused('a backslash at the end of the line');
        if (next !== '\n') value += next;
        this.i += 2;
      } else if (isPlain(code)) {
        if (c === '=' && this.i > start && plainOnly) assignment = true;
        value += c;
        this.i++;
      } else if (code >= 0x80) {
        throw new Refused('a non-ASCII character outside quotes');
      } else {
        throw new Refused(`\`${c}\` outside quotes (glob, brace, tilde, history or other expansion)`);
      }
    }
    const text = line.slice(start, this.i);
    const digits = plainOnly && text.length > 0 && isDigits(text);
    return { text, value: computed ? undefined : value, digits, assignment };
  }

  /** `"…"` from `this.i`: its value, or `undefined` when it holds a parameter reference. */
  private doubleQuoted(): string | undefined {
    const line = this.line;
    this.i++;
    let value = '';
    let computed = false;
    while (this.i < line.length) {
      const c = line[this.i]!;
      if (c === '"') {
        this.i++;
        return computed ? undefined : value;
      }
      if (c === '\\') {
        const next = line[this.i + 1];
        if (next === '$' || next === '`' || next === '"' || next === '\\') {
          value += next;
          this.i += 2;
        } else if (next === '\n') {
          this.i += 2;
        } else {
          // bash keeps a backslash before any other character inside double quotes.
          value += '\\';
          this.i++;
        }
      } else if (c === '$') {
        this.parameter();
        computed = true;
      } else if (c === '`') {
        throw new Refused('command substitution');
      } else if (c === '!') {
        throw new Refused('`!` inside double quotes (history expansion where it is on)');
      } else {
        value += c;
        this.i++;
      }
    }
    throw new Refused('an unterminated double quote');
  }

  /** `$NAME` or `${NAME}` from `this.i`; anything else after `$` is refused. */
  private parameter(): void {
    const line = this.line;
    const braced = line[this.i + 1] === '{';
    let j = this.i + (braced ? 2 : 1);
    const nameStart = j;
    if (!isNameStart(line.charCodeAt(j))) throw new Refused('a `$` that is not a plain parameter reference');
    while (j < line.length && isNameChar(line.charCodeAt(j))) j++;
    const name = line.slice(nameStart, j);
    if (name === '_') throw new Refused('the special parameter `$_`');
    if (braced) {
      if (line[j] !== '}')
        throw new Refused('a parameter expansion with an operator, subscript or transformation');
      j++;
    }
    this.i = j;
  }

  /** `$'…'` from `this.i`, decoding only escapes that stand for one fixed character. */
  private ansiC(): string {
    const line = this.line;
    let j = this.i + 2;
    let value = '';
    while (j < line.length) {
      const c = line[j]!;
      if (c === "'") {
        this.i = j + 1;
        return value;
      }
      if (c === '\\') {
        const e = line[j + 1];
        if (e === undefined || !Object.hasOwn(SIMPLE_ESCAPES, e))
          throw new Refused("an escape in $'…' the grammar does not decode (NUL, \\c, \\x, \\u, \\U, octal)");
        value += SIMPLE_ESCAPES[e];
        j += 2;
      } else {
        value += c;
        j++;
      }
    }
    throw new Refused("an unterminated $'…'");
  }
}

interface ReadWord {
  readonly text: string;
  readonly value: string | undefined;
  /** Unquoted digits only: an fd number when a redirection follows with nothing between. */
  readonly digits: boolean;
  /** An unquoted `=` after unquoted characters: `NAME=value` before a command is an assignment. */
  readonly assignment: boolean;
}

function isDigits(text: string): boolean {
  for (let k = 0; k < text.length; k++) {
    const code = text.charCodeAt(k);
    if (code < 0x30 || code > 0x39) return false;
  }
  return true;
}

/** `1`, `2-` (move), `-` (close). */
function isFdTarget(value: string): boolean {
  if (value === '-') return true;
  const body = value.endsWith('-') ? value.slice(0, -1) : value;
  return body.length > 0 && body.length <= 4 && isDigits(body);
}
