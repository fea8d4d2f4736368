import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Language, Node, Parser } from 'web-tree-sitter';
import { SdkError } from '../errors.js';
import { commandWords, readsDifferently } from './shellWords.js';
import type { ShellWord } from './shellWords.js';

/**
 * Splitting a shell command into the simple commands it runs, so that each can be checked
 * against `Bash(...)` rules on its own (docs/permissions-requirements.md R5.2, E12).
 *
 * The parser is tree-sitter's Bash grammar (`tree-sitter-bash`, run by `web-tree-sitter` as
 * WebAssembly): a real, maintained grammar that gives a typed syntax tree, so `$(…)`, backticks,
 * subshells, redirections and heredocs are seen as what they are. `shell-quote` was not enough: it
 * joins the two lines of `a\nb` into one command and accepts an unterminated quote.
 * `sh-syntax` (mvdan/sh) returns its tree without node types.
 *
 * Anything the splitter cannot classify safely is reported, never guessed: a syntax error makes
 * the command {@link ShellSplit unparsable}; constructs that run or hide other code, or write
 * files, are {@link ShellHazard hazards}. The policy asks the user about both.
 */
export interface ShellParser {
  /** Splits one command line. Never throws; failures are an `ok: false` result. */
  split(command: string): ShellSplit;
}

/** One simple command found in a command line. */
export interface ShellCommand {
  /** The command as written, without the redirections of its statement. */
  readonly text: string;
  /** Its leading `NAME=value` assignments, as written (`FOO=1` of `FOO=1 npm test`). */
  readonly assignments: readonly string[];
  /** Its words as bash passes them, after quote removal: the command name first. */
  readonly words: readonly ShellWord[];
  /**
   * True when the command sits inside something else — a command or process substitution, a
   * subshell, a `{ …; }` group, a function or control-flow body. Such commands always come with a
   * hazard; they are listed so that deny rules can still see them.
   */
  readonly nested: boolean;
}

/**
 * A construct that stops a command line from being allowed by rules (the user is asked instead).
 * `unsafe_characters`: bash may read the line differently from the parser — control characters or
 * Unicode spaces outside quotes, an escaped tab, a word the parser cut in two — so its words are
 * not trusted (docs/permissions-policy.md, "Bash's own words").
 */
export type ShellHazardKind =
  | 'command_substitution'
  | 'process_substitution'
  | 'subshell'
  | 'group'
  | 'redirection'
  | 'heredoc'
  | 'assignment'
  | 'function_definition'
  | 'control_flow'
  | 'unsupported_syntax'
  | 'unsafe_characters';

/** A hazard and the source text it was found in. */
export interface ShellHazard {
  readonly kind: ShellHazardKind;
  readonly text: string;
}

/** Why a command line could not be split. */
export type ShellUnparsableReason = 'empty' | 'too_long' | 'syntax_error' | 'parser_failed';

/** The result of {@link ShellParser.split}. */
export type ShellSplit =
  | {
      readonly ok: true;
      readonly commands: readonly ShellCommand[];
      readonly hazards: readonly ShellHazard[];
    }
  | { readonly ok: false; readonly reason: ShellUnparsableReason };

/**
 * Longest command line the splitter looks at; longer ones are unparsable (and so asked about, or
 * denied where a deny rule is in force and nobody would be asked). tree-sitter's time on hostile
 * text (runs of quotes, of `[`, of `;`) grows faster than its length, so it only reads short
 * lines: a longer line is judged by the grammar alone ((`MAX_GRAMMAR_LINE_LENGTH` of bashGrammar.ts)), which
 * reads exactly what it accepts, and a longer line outside the grammar cannot be checked.
 */
export const MAX_SHELL_COMMAND_LENGTH = 1024;

/**
 * Longest tree-sitter may parse one line, in milliseconds. Its error recovery on some short
 * hostile lines (`ls|a|a|…|`) costs milliseconds per step; a parse over the deadline, or over
 * {@link PARSE_STEPS_PER_CHARACTER} progress steps per character, is cancelled and the line is
 * `too_long`, so it cannot be checked (the user is asked, or it is denied where nobody would be).
 */
export const MAX_SHELL_PARSE_MS = 50;

/** tree-sitter reports progress about every 100 parse steps; an ordinary line needs one report per 70 characters or so. */
const PARSE_STEPS_PER_CHARACTER = 1 / 8;

/** tree-sitter's progress callback for `command`: true (cancel) once the parse is over its budget. */
function parseBudget(command: string, onCancel: () => void): (state: unknown) => void {
  const started = performance.now();
  const reports = 8 + Math.ceil(command.length * PARSE_STEPS_PER_CHARACTER);
  let seen = 0;
  // web-tree-sitter's type says `void`, but the callback's `true` cancels the parse.
  return ((): boolean => {
    seen++;
    if (seen <= reports && performance.now() - started <= MAX_SHELL_PARSE_MS) return false;
    onCancel();
    return true;
  }) as unknown as (state: unknown) => void;
}

/** Most syntax nodes of a split line; a line whose tree has more is `too_long`. */
export const MAX_SHELL_NODES = 400;

/** Options of {@link loadShellParser}. */
export interface LoadShellParserOptions {
  /**
   * The `tree-sitter-bash.wasm` grammar, as a file path or bytes. Defaults to the grammar this
   * package ships beside its code; pass bytes where there is no file system (a browser).
   */
  readonly bashWasm?: string | Uint8Array;
}

let runtimeReady: Promise<void> | undefined;
let defaultLanguage: Promise<Language> | undefined;

/**
 * Loads the Bash grammar (once per process for the default grammar) and returns a parser.
 * Asynchronous because WebAssembly is compiled asynchronously; splitting afterwards is synchronous,
 * so policy evaluation stays synchronous. Rejects with `permissions.shell_unavailable` if the
 * grammar cannot be loaded.
 */
export async function loadShellParser(options: LoadShellParserOptions = {}): Promise<ShellParser> {
  try {
    // web-tree-sitter and the grammar load on first use, never at import.
    const { Language, Parser } = await import('web-tree-sitter');
    runtimeReady ??= Parser.init();
    await runtimeReady;
    const language =
      options.bashWasm === undefined
        ? await (defaultLanguage ??= Language.load(defaultBashWasmPath()))
        : await Language.load(options.bashWasm);
    const parser = new Parser();
    parser.setLanguage(language);
    return { split: (command) => splitWith(parser, command) };
  } catch (cause) {
    if (options.bashWasm === undefined) defaultLanguage = undefined;
    throw new SdkError(
      'permissions.shell_unavailable',
      'Could not load the Bash grammar for splitting shell commands.',
      {
        hint: 'check that the web-tree-sitter package is installed and that tree-sitter-bash.wasm sits beside the package code (or pass bashWasm)',
        cause,
      },
    );
  }
}

/**
 * The built package carries the grammar beside its code (`dist/tree-sitter-bash.wasm`); run from
 * source, it is the file of the `tree-sitter-bash` development dependency.
 */
function defaultBashWasmPath(): string {
  const beside = fileURLToPath(new URL('./tree-sitter-bash.wasm', import.meta.url));
  if (existsSync(beside)) return beside;
  return createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm');
}

function splitWith(parser: Parser, command: string): ShellSplit {
  if (command.length > MAX_SHELL_COMMAND_LENGTH) return { ok: false, reason: 'too_long' };
  if (command.trim().length === 0) return { ok: false, reason: 'empty' };
  // tree-sitter takes time quadratic in a run of NULs, and bash never receives one (a C string ends there).
  if (command.includes('\0')) return { ok: false, reason: 'syntax_error' };
  let tree;
  let cancelled = false;
  try {
    tree = parser.parse(command, null, { progressCallback: parseBudget(command, () => (cancelled = true)) });
  } catch {
    return { ok: false, reason: 'parser_failed' };
  }
  if (!tree) return { ok: false, reason: cancelled ? 'too_long' : 'parser_failed' };
  try {
    if (tree.rootNode.hasError) return { ok: false, reason: 'syntax_error' };
    // Reading a node costs a call into WebAssembly: the walk is bounded by the tree's size.
    if (tree.rootNode.descendantCount > MAX_SHELL_NODES) return { ok: false, reason: 'too_long' };
    const split = walk(tree.rootNode, command);
    if (!split.ok || split.hazards.some((h) => h.kind === 'unsafe_characters')) return split;
    if (!readsDifferently(tree.rootNode, command)) return split;
    // tree-sitter splits words where bash does not (`\r`, `\v`, `\f`, an escaped tab), and bash
    // keeps look-alike spaces inside words: such a line is never read as words that could match a
    // rule (docs/permissions-policy.md, "Bash's own words").
    return { ...split, hazards: [...split.hazards, { kind: 'unsafe_characters', text: command }] };
  } finally {
    tree.delete();
  }
}

const TRANSPARENT = new Set([
  'program',
  'list',
  'pipeline',
  'negated_command',
  'redirected_statement',
  'command_name',
  'word',
  'string',
  'string_content',
  'raw_string',
  'ansi_c_string',
  'translated_string',
  'simple_expansion',
  'expansion',
  'variable_name',
  'special_variable_name',
  'number',
  'concatenation',
  'comment',
  'file_descriptor',
  'heredoc_start',
  'heredoc_body',
  'heredoc_content',
  'heredoc_end',
]);

const NESTING: Readonly<Record<string, ShellHazardKind>> = {
  command_substitution: 'command_substitution',
  process_substitution: 'process_substitution',
  subshell: 'subshell',
  compound_statement: 'group',
  function_definition: 'function_definition',
  if_statement: 'control_flow',
  elif_clause: 'control_flow',
  else_clause: 'control_flow',
  for_statement: 'control_flow',
  c_style_for_statement: 'control_flow',
  while_statement: 'control_flow',
  do_group: 'control_flow',
  case_statement: 'control_flow',
  case_item: 'control_flow',
};

const FLAT: Readonly<Record<string, ShellHazardKind>> = {
  heredoc_redirect: 'heredoc',
  herestring_redirect: 'redirection',
  variable_assignments: 'assignment',
  declaration_command: 'assignment',
  unset_command: 'assignment',
};

function walk(root: Node, source: string): ShellSplit {
  const commands: ShellCommand[] = [];
  const hazards: ShellHazard[] = [];
  // Iterative, so a deeply nested command line cannot overflow the stack.
  const stack: { node: Node; nested: boolean; parent: string }[] = [
    { node: root, nested: false, parent: '' },
  ];
  while (stack.length > 0) {
    const { node, nested, parent } = stack.pop()!;
    if (node.isError || node.isMissing) return { ok: false, reason: 'syntax_error' };
    if (!node.isNamed) continue;
    const type = node.type;
    let innerNested = nested;
    if (type === 'command') {
      const { misread, ...words } = commandWords(node, source);
      commands.push({ text: node.text, nested, ...words });
      if (misread) hazards.push({ kind: 'unsafe_characters', text: node.text });
    } else if (type === 'variable_assignment') {
      // `FOO=1 cmd` only affects `cmd`; a bare `PATH=/evil` changes what later commands run.
      if (parent !== 'command') hazards.push({ kind: 'assignment', text: node.text });
    } else if (type === 'file_redirect') {
      if (!isHarmlessRedirect(node)) hazards.push({ kind: 'redirection', text: node.text });
    } else if (Object.hasOwn(NESTING, type)) {
      hazards.push({ kind: NESTING[type]!, text: node.text });
      innerNested = true;
    } else if (Object.hasOwn(FLAT, type)) {
      hazards.push({ kind: FLAT[type]!, text: node.text });
    } else if (!TRANSPARENT.has(type)) {
      hazards.push({ kind: 'unsupported_syntax', text: node.text });
      innerNested = true;
    }
    const children = node.children;
    for (let i = children.length - 1; i >= 0; i--) {
      const child = children[i];
      if (child) stack.push({ node: child, nested: innerNested, parent: type });
    }
  }
  // Children are pushed in reverse, so both lists come out in source order.
  return { ok: true, commands, hazards };
}

/** `2>&1`, `>&2`, `3<&-` and writes to `/dev/null` neither read nor write files. */
function isHarmlessRedirect(node: Node): boolean {
  const operator = node.children.find((c) => c !== null && !c.isNamed)?.type;
  const destination = node.childForFieldName('destination')?.text;
  if (operator === undefined || destination === undefined) return false;
  if ((operator === '>&' || operator === '<&') && /^(\d+-?|-)$/.test(destination)) return true;
  const writes = ['>', '>>', '&>', '&>>', '>|', '>&'];
  return writes.includes(operator) && destination === '/dev/null';
}
