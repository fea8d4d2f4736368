import { posix } from 'node:path';
import { pathReadings } from './pathArgument.js';
import type { ShellWord } from './shellWords.js';

/**
 * The command table (docs/permissions-policy.md, "The command table"): the one place that decides
 * which commands are **leaves** (they do not run their arguments as code) and which of their
 * options, subcommands or arguments run code, write a file, or change the directory or the
 * configuration the command reads.
 *
 * - Deny and ask rules: a command not in this table, or one using an option marked `code`, may
 *   run code the policy cannot see ({@link mayRunCode}); while such a rule is in force, the line
 *   asks, or is denied where nobody would be asked.
 * - Prefix grants (`Bash(git log:*)`) cover a command's further words, never one the table marks
 *   ({@link grantProblem}); for a command not in the table, never an option naming a path outside
 *   the workspace.
 */

/**
 * What a marked word does: runs code, writes a file, changes the directory or configuration, or
 * reads a file outside the workspace that the command sends or uses (`curl -T ~/.ssh/id_rsa`).
 */
export type WordEffect = 'code' | 'write' | 'config' | 'read';

/** One marked word of a command: where it is, what it does and why. */
export interface Marked {
  readonly index: number;
  readonly effect: WordEffect;
  readonly why: string;
}

/** One option of a command, for reading where its value is and whether it is marked. */
interface Opt {
  readonly effect?: WordEffect;
  /** `required`: the value is attached or the next word; `optional`: only attached (`-i.bak`, `--opt=x`). */
  readonly value?: 'required' | 'optional';
  /** Values that make the option harmless (`curl -o -` writes to standard output). */
  readonly harmless?: readonly string[];
  /**
   * The option reads the file its value names (to send it, or as a key or list): marked `read`
   * when that value names a path outside the workspace, or cannot be known.
   */
  readonly reads?: true;
  /** What the option does with this value, for options whose effect depends on it (tar's archive). */
  readonly check?: (value: string | undefined) => WordEffect | undefined;
  /** Why, for {@link Opt.check}. */
  readonly about?: string;
}

/** What `opt` with `value` does, if the table marks it; `root` is the workspace root. */
function effectOf(opt: Opt, value: string | undefined, root: string | undefined): WordEffect | undefined {
  if (opt.check) return opt.check(value);
  if (opt.effect && !(value !== undefined && opt.harmless?.includes(value))) return opt.effect;
  if (opt.reads && (value === undefined || readsOutside(value, root))) return 'read';
  return undefined;
}

/**
 * True when an option's value names a file outside `root`: the value itself, or the part after an
 * `@` or `<` (curl's `-d @file`, `-F name=@file`, `-F name=<file`).
 */
function readsOutside(value: string, root: string | undefined): boolean {
  return [value, ...value.split(/[@<]/).slice(1)].some((v) => v !== '' && pathOutside(v, root));
}

interface OptionSpec {
  readonly short?: Readonly<Record<string, Opt>>;
  readonly long?: Readonly<Record<string, Opt>>;
}

/** The options, positional words and end of options (`--`) of a command's arguments. */
interface Scan {
  readonly marked: Marked[];
  /** Indices (into the command's words) of the words that are not options nor option values. */
  readonly positional: number[];
  /** Index of `--`, if any. */
  readonly end: number | undefined;
}

/**
 * Reads GNU-style options from `words[from]` on: combined short options (`-xvf`), attached and
 * separate values (`-ofile`, `-o file`, `--out=x`, `--output x`), unique abbreviations of long
 * options as GNU getopt and git accept them (`--out` for `--output`: a prefix of a marked option is
 * marked), and `--` ending the options. Options may follow positional words (GNU permutes them)
 * unless `stopAtPositional`. A plain parameter reference (`$X`) is an argument, whatever the
 * environment holds (docs/permissions-policy.md, "The command table").
 */
function scanOptions(
  words: readonly ShellWord[],
  from: number,
  spec: OptionSpec,
  what: string,
  stopAtPositional = false,
  root?: string,
  unknownOptions = true,
): Scan {
  const marked: Marked[] = [];
  const positional: number[] = [];
  let end: number | undefined;
  for (let i = from; i < words.length; i++) {
    const word = words[i]!.value;
    if (word === undefined) {
      // `-o$HOME/x`, `--out=$X`: an option whose value is computed may name any path.
      if (unknownOptions && words[i]!.text.startsWith('-') && end === undefined)
        marked.push({
          index: i,
          effect: 'write',
          why: `${what} ${words[i]!.text}: an option with a computed value`,
        });
      positional.push(i);
      continue;
    }
    if (word === '--') {
      end = i;
      for (let j = i + 1; j < words.length; j++) positional.push(j);
      break;
    }
    if (!word.startsWith('-') || word === '-') {
      positional.push(i);
      if (stopAtPositional) {
        for (let j = i + 1; j < words.length; j++) positional.push(j);
        break;
      }
      continue;
    }
    if (word.startsWith('--')) {
      const eq = word.indexOf('=');
      const name = eq === -1 ? word.slice(2) : word.slice(2, eq);
      const attached = eq === -1 ? undefined : word.slice(eq + 1);
      const exact = spec.long?.[name];
      const candidates = exact
        ? [[name, exact] as const]
        : Object.entries(spec.long ?? {}).filter(([long]) => long.startsWith(name));
      let value = attached;
      if (candidates.length === 0 && unknownOptions) {
        // An option the row does not know: its value, attached or maybe the next word, must not
        // name a path outside the workspace (`wget --hsts-file=/x`, `npm ls --logs-dir=/x`).
        const next = attached === undefined ? words[i + 1] : undefined;
        const values = [attached, next?.value?.startsWith('-') ? undefined : next?.value];
        if (
          values.some((v) => v !== undefined && pathOutside(v, root)) ||
          (next !== undefined && next.value === undefined)
        )
          marked.push({
            index: i,
            effect: 'write',
            why: `${what} ${word}: an option the table does not know, naming a path outside the workspace`,
          });
        continue;
      }
      const only = candidates.length === 1 ? candidates[0]![1] : undefined;
      if (only?.value === 'required' && attached === undefined) value = words[++i]?.value;
      for (const [long, opt] of candidates) {
        const effect = effectOf(opt, value, root);
        if (effect) marked.push({ index: i, effect, why: opt.about ?? `${what} --${long}` });
      }
      continue;
    }
    let unknownChecked = false;
    for (let j = 1; j < word.length; j++) {
      const letter = word[j]!;
      const opt = spec.short?.[letter];
      if (!opt) {
        // A letter the row does not know may take the rest of the word as its value (`-o/x`,
        // `-vo/x`): judged once per word, from where a path could start.
        if (unknownOptions && !unknownChecked) {
          unknownChecked = true;
          if (attachedPathOutside(word, root)) {
            marked.push({
              index: i,
              effect: 'write',
              why: `${what} -${letter}: an option the table does not know, naming a path outside the workspace`,
            });
            break;
          }
        }
        continue;
      }
      let value: string | undefined;
      if (opt.value !== undefined) {
        const rest = word.slice(j + 1);
        value = rest.length > 0 ? rest : opt.value === 'required' ? words[++i]?.value : undefined;
      }
      const effect = effectOf(opt, value, root);
      if (effect) marked.push({ index: i, effect, why: opt.about ?? `${what} -${letter}` });
      if (opt.value !== undefined) break;
    }
  }
  return { marked, positional, end };
}

const code: Opt = { effect: 'code' };
const codeV: Opt = { effect: 'code', value: 'required' };
const write: Opt = { effect: 'write' };
const writeV: Opt = { effect: 'write', value: 'required' };
const configV: Opt = { effect: 'config', value: 'required' };
const valued: Opt = { value: 'required' };
const readsV: Opt = { value: 'required', reads: true };

/** uniq's options that take a value, so that its file operands are counted right. */
const UNIQ: OptionSpec = {
  short: { f: valued, s: valued, w: valued },
  long: {
    'skip-fields': valued,
    'skip-chars': valued,
    'check-chars': valued,
    group: { value: 'optional' },
    'all-repeated': { value: 'optional' },
  },
};

/** How one command's words are judged: its marked words, and whether it runs code whatever its words. */
interface Entry {
  /** Why the command is in the table. */
  readonly about: string;
  /**
   * True when the table marks none of the command's words whatever they are: the command stays a
   * leaf even when words it is given are unseen (`xargs cat`).
   */
  readonly pure?: true;
  /**
   * The words of `words` (the command's, name first) that the table marks; `root` is the
   * workspace root, for words that must not name a path outside it (`null`: not judged).
   */
  readonly judge: (words: readonly ShellWord[], root: string | undefined) => Marked[];
}

function plain(about: string, spec?: OptionSpec): Entry {
  return {
    about,
    ...(spec === undefined ? { pure: true as const } : {}),
    // A row with no marked word covers every option (reading is what its grant is for).
    judge: (words, root) =>
      scanOptions(words, 1, spec ?? {}, baseOf(words), false, root, spec !== undefined).marked,
  };
}

const inputWords = new WeakSet<ShellWord>();

/**
 * A word that stands for arguments a command is given when it runs, from its input (`xargs cmd`
 * appends the words it reads; `xargs -I{}` puts them where `{}` is): none, one or several words,
 * options included, that the line does not show.
 */
export function inputWord(text: string): ShellWord {
  const word: ShellWord = { text, value: undefined };
  inputWords.add(word);
  return word;
}

/**
 * True when the table marks none of the command's words whatever they are (`cat`, `grep`, `rm`):
 * words it is given unseen (from `xargs`'s input) cannot be options it marks.
 */
export function marksNoWord(words: readonly ShellWord[]): boolean {
  const name = words[0]?.value;
  if (name === undefined) return false;
  const base = name.slice(name.lastIndexOf('/') + 1);
  return Object.hasOwn(TABLE, base) && TABLE[base]!.pure === true;
}

/** True for a word made by {@link inputWord}. */
export function isInputWord(word: ShellWord): boolean {
  return inputWords.has(word);
}

function baseOf(words: readonly ShellWord[]): string {
  const name = words[0]?.value ?? '';
  return name.slice(name.lastIndexOf('/') + 1);
}

// ---------------------------------------------------------------------------------------------
// git

const GIT_GLOBAL: OptionSpec = {
  short: { C: { effect: 'code', value: 'required' }, c: codeV, p: {}, P: {}, v: {}, h: {} },
  long: {
    'config-env': codeV,
    'exec-path': { effect: 'code', value: 'optional' },
    'git-dir': codeV,
    'work-tree': codeV,
    namespace: configV,
    'super-prefix': configV,
    'list-cmds': valued,
    'attr-source': configV,
    'html-path': {},
    'man-path': {},
    'info-path': {},
    paginate: {},
    'no-pager': {},
    'no-replace-objects': {},
    'no-lazy-fetch': {},
    'no-optional-locks': {},
    'no-advice': {},
    bare: {},
    'literal-pathspecs': {},
    'glob-pathspecs': {},
    'noglob-pathspecs': {},
    'icase-pathspecs': {},
    version: {},
    help: {},
  },
};

/** Long options of git subcommands that run code, write a file or change the configuration. */
const GIT_LONG: Readonly<Record<string, Opt>> = {
  'ext-diff': code,
  textconv: code,
  filters: code,
  exec: codeV,
  'upload-pack': codeV,
  'receive-pack': codeV,
  'open-files-in-pager': { effect: 'code', value: 'optional' },
  extcmd: codeV,
  tool: codeV,
  template: codeV,
  config: codeV,
  'separate-git-dir': writeV,
  output: writeV,
  'output-directory': writeV,
  'git-dir': codeV,
  'work-tree': codeV,
  // `git blame --contents`, `git commit --file`, `git tag --file`: the file's text is read in.
  contents: readsV,
  file: readsV,
};

/** Short options of git subcommands that do the same, subcommand by subcommand. */
const GIT_SHORT: Readonly<Record<string, Readonly<Record<string, Opt>>>> = {
  rebase: { x: codeV },
  grep: { O: { effect: 'code', value: 'optional' } },
  'format-patch': { o: writeV },
  archive: { o: writeV },
  clone: { c: codeV, u: codeV },
  'ls-remote': { u: codeV },
  fetch: {},
  difftool: { x: codeV, t: codeV },
  mergetool: { t: codeV },
  commit: { F: readsV, t: codeV },
  tag: { F: readsV },
  notes: { F: readsV },
};

/** Subcommands known to run no command of their arguments (git still runs the repository's hooks). */
const GIT_SUBCOMMANDS = new Set([
  'add',
  'am',
  'apply',
  'archive',
  'bisect',
  'blame',
  'branch',
  'bundle',
  'cat-file',
  'check-attr',
  'check-ignore',
  'checkout',
  'cherry',
  'cherry-pick',
  'clean',
  'clone',
  'commit',
  'config',
  'count-objects',
  'describe',
  'diff',
  'diff-files',
  'diff-index',
  'diff-tree',
  'fetch',
  'for-each-ref',
  'format-patch',
  'fsck',
  'gc',
  'grep',
  'hash-object',
  'help',
  'init',
  'log',
  'ls-files',
  'ls-remote',
  'ls-tree',
  'merge',
  'merge-base',
  'mv',
  'name-rev',
  'notes',
  'prune',
  'pull',
  'push',
  'range-diff',
  'rebase',
  'reflog',
  'remote',
  'repack',
  'reset',
  'restore',
  'rev-list',
  'rev-parse',
  'revert',
  'rm',
  'shortlog',
  'show',
  'show-ref',
  'sparse-checkout',
  'stash',
  'status',
  'switch',
  'symbolic-ref',
  'tag',
  'update-index',
  'update-ref',
  'var',
  'verify-commit',
  'verify-tag',
  'version',
  'whatchanged',
  'worktree',
]);

/** The actions of `git config` that only read. */
const GIT_CONFIG_READS = new Set([
  '--get',
  '--get-all',
  '--get-regexp',
  '--get-urlmatch',
  '--get-color',
  '--get-colorbool',
  '--list',
  '-l',
]);

/** `git config` options that take the next word as their value. */
const GIT_CONFIG_VALUED = new Set([
  '-f',
  '--file',
  '--blob',
  '--type',
  '--default',
  '--comment',
  '--value',
  '--url',
]);

/** `git config` options that change neither the action nor what is written. */
const GIT_CONFIG_FLAGS = new Set([
  '--global',
  '--system',
  '--local',
  '--worktree',
  '--bool',
  '--int',
  '--bool-or-int',
  '--path',
  '--expiry-date',
  '--no-type',
  '--null',
  '-z',
  '--name-only',
  '--show-origin',
  '--show-scope',
  '--includes',
  '--no-includes',
  '--fixed-value',
]);

/**
 * True when `git config` with these words (after `config`) only reads: a reading action among its
 * options (each option read as git reads it: a value of `--file` is no action), every other option
 * known, or the reading subcommands `get` and `list` of newer git. Anything else may write
 * configuration: a value that happens to be `list` (`git config core.fsmonitor CMD list` sets it).
 */
function gitConfigOnlyReads(words: readonly ShellWord[]): boolean {
  let read = false;
  let first: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i]!.value;
    if (w === undefined) return false;
    if (w === '--') {
      first ??= words[i + 1]?.value;
      break;
    }
    if (!w.startsWith('-') || w === '-') {
      first ??= w;
      continue;
    }
    const eq = w.indexOf('=');
    if (GIT_CONFIG_READS.has(w)) read = true;
    else if (GIT_CONFIG_VALUED.has(w)) i++;
    else if (!(eq > 0 && GIT_CONFIG_VALUED.has(w.slice(0, eq))) && !GIT_CONFIG_FLAGS.has(w)) return false;
  }
  return read || first === 'get' || first === 'list';
}

function judgeGit(words: readonly ShellWord[], root: string | undefined): Marked[] {
  const global = scanOptions(words, 1, GIT_GLOBAL, 'git', true, root);
  const marked = [...global.marked];
  // A global option git does not have: what follows cannot be placed.
  for (let i = 1; i < (global.positional[0] ?? words.length); i++) {
    const w = words[i]!.value ?? '';
    const name = w.startsWith('--') ? w.slice(2).split('=')[0]! : undefined;
    if (name !== undefined && name !== '' && !Object.keys(GIT_GLOBAL.long!).some((l) => l.startsWith(name)))
      marked.push({ index: i, effect: 'code', why: `git ${w}: an option git's table does not know` });
  }
  const at = global.positional[0];
  if (at === undefined || global.end !== undefined) return marked;
  const sub = words[at]!.value;
  if (sub === undefined || !GIT_SUBCOMMANDS.has(sub)) {
    marked.push({
      index: at,
      effect: 'code',
      why: `git ${words[at]!.text}: an alias or a git-<name> program may run any command`,
    });
    return marked;
  }
  const scan = scanOptions(
    words,
    at + 1,
    { short: GIT_SHORT[sub] ?? {}, long: GIT_LONG },
    `git ${sub}`,
    false,
    root,
  );
  marked.push(...scan.marked);
  // Configuration names programs git runs later (core.fsmonitor, core.pager, alias.*, diff.external).
  if (sub === 'config' && !gitConfigOnlyReads(words.slice(at + 1)))
    marked.push({
      index: at,
      effect: 'code',
      why: 'git config writes configuration, which names programs git runs',
    });
  if (sub === 'bisect' && words.slice(at + 1).some((w) => w.value === 'run' || w.value === undefined))
    marked.push({ index: at, effect: 'code', why: 'git bisect run runs a command' });
  return marked;
}

// ---------------------------------------------------------------------------------------------
// find

const FIND_CODE = new Set(['-exec', '-execdir', '-ok', '-okdir']);
const FIND_WRITE = new Set(['-delete', '-fprint', '-fprint0', '-fprintf', '-fls']);

function judgeFind(words: readonly ShellWord[]): Marked[] {
  const marked: Marked[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!.value;
    if (w === undefined) continue;
    if (FIND_CODE.has(w)) marked.push({ index: i, effect: 'code', why: `find ${w} runs a command` });
    else if (FIND_WRITE.has(w))
      marked.push({ index: i, effect: 'write', why: `find ${w} writes or deletes` });
  }
  return marked;
}

// ---------------------------------------------------------------------------------------------
// sed

const SED: OptionSpec = {
  short: {
    e: valued,
    f: codeV,
    i: { effect: 'write', value: 'optional' },
    l: valued,
    n: {},
    E: {},
    r: {},
    s: {},
    u: {},
    z: {},
    b: {},
  },
  long: {
    expression: valued,
    file: codeV,
    'in-place': { effect: 'write', value: 'optional' },
    'line-length': valued,
    sandbox: {},
    quiet: {},
    silent: {},
    debug: {},
    posix: {},
    'regexp-extended': {},
    separate: {},
    unbuffered: {},
    'null-data': {},
    'zero-terminated': {},
    'follow-symlinks': {},
    binary: {},
  },
};

function judgeSed(words: readonly ShellWord[], root: string | undefined): Marked[] {
  const scan = scanOptions(words, 1, SED, 'sed', false, root);
  const marked = [...scan.marked];
  const scripts: { index: number; text: string | undefined }[] = [];
  let sandbox = false;
  for (let i = 1; i < words.length && i !== scan.end; i++) {
    const w = words[i]!.value;
    if (w === undefined) continue;
    if (w === '--sandbox') sandbox = true;
    if (/^-[^-]/.test(w)) {
      const e = w.indexOf('e');
      // `-e script` or `-ne script`: the first valued letter decides.
      const firstValued = [...w.slice(1)].findIndex((c) => 'efil'.includes(c));
      if (e !== -1 && firstValued === e - 1)
        scripts.push(
          w.length > e + 1 ? { index: i, text: w.slice(e + 1) } : { index: i + 1, text: words[i + 1]?.value },
        );
    } else if (w.startsWith('--e')) {
      const eq = w.indexOf('=');
      if ('--expression'.startsWith(eq === -1 ? w : w.slice(0, eq)))
        scripts.push(
          eq === -1 ? { index: i + 1, text: words[i + 1]?.value } : { index: i, text: w.slice(eq + 1) },
        );
    }
  }
  const usesFile = scan.marked.some((m) => m.why.startsWith('sed -f') || m.why.startsWith('sed --file'));
  if (scripts.length === 0 && !usesFile) {
    const first = scan.positional[0];
    if (first !== undefined) scripts.push({ index: first, text: words[first]!.value });
  }
  if (sandbox) return marked;
  for (const s of scripts) {
    const effect = s.text === undefined ? 'code' : sedScriptEffect(s.text);
    if (effect)
      marked.push({
        index: s.index,
        effect,
        why: `sed script ${effect === 'code' ? 'runs a command' : 'writes a file'}`,
      });
  }
  return marked;
}

/**
 * What a sed script does beyond printing: `code` for the `e` command or the `s///e` flag, or for
 * anything this reader does not follow; `write` for `w`/`W` and `s///w`. GNU sed's syntax.
 */
export function sedScriptEffect(script: string): WordEffect | undefined {
  let i = 0;
  let effect: WordEffect | undefined;
  const n = script.length;
  const skipBlank = (): void => {
    while (i < n && (script[i] === ' ' || script[i] === '\t')) i++;
  };
  const toEol = (): void => {
    while (i < n && script[i] !== '\n') i++;
  };
  // A regular expression or replacement up to the unescaped delimiter; false when unterminated.
  const part = (delim: string, regex: boolean): boolean => {
    while (i < n) {
      const c = script[i]!;
      if (c === '\\') {
        if (i + 1 >= n) return false;
        if (script[i + 1] === 'c') return false;
        i += 2;
        continue;
      }
      if (c === '\n' && regex) return false;
      if (c === delim) {
        i++;
        return true;
      }
      if (regex && c === '[') {
        let j = i + 1;
        if (script[j] === '^') j++;
        if (script[j] === ']') j++;
        while (j < n && script[j] !== ']') {
          if (script[j] === '\\' || script[j] === '\n') return false;
          if (script[j] === '[' && ':.='.includes(script[j + 1] ?? '')) {
            const close = script.indexOf(`${script[j + 1]}]`, j + 2);
            if (close === -1) return false;
            j = close + 2;
            continue;
          }
          j++;
        }
        if (j >= n) return false;
        i = j + 1;
        continue;
      }
      i++;
    }
    return false;
  };
  const address = (): boolean => {
    const c = script[i];
    if (c === undefined) return true;
    if (/[0-9]/.test(c)) {
      while (i < n && /[0-9~]/.test(script[i]!)) i++;
      return true;
    }
    if (c === '$') {
      i++;
      return true;
    }
    if (c === '/' || c === '\\') {
      let delim = '/';
      if (c === '\\') {
        delim = script[i + 1] ?? '';
        if (delim === '' || delim === '\n' || delim === '\\') return false;
        i++;
      }
      i++;
      if (!part(delim, true)) return false;
      while (script[i] === 'I' || script[i] === 'M') i++;
      return true;
    }
    return true;
  };
  while (i < n) {
    while (i < n && ' \t\n;'.includes(script[i]!)) i++;
    if (i >= n) break;
    if (script[i] === '#') {
      toEol();
      continue;
    }
    if (!address()) return 'code';
    skipBlank();
    if (script[i] === ',') {
      i++;
      skipBlank();
      if (script[i] === '+' || script[i] === '~') i++;
      if (!address()) return 'code';
      skipBlank();
    }
    while (script[i] === '!' || script[i] === ' ' || script[i] === '\t') i++;
    const cmd = script[i++];
    if (cmd === undefined) return 'code';
    switch (cmd) {
      case '{':
      case '}':
      case '=':
      case 'd':
      case 'D':
      case 'g':
      case 'G':
      case 'h':
      case 'H':
      case 'n':
      case 'N':
      case 'p':
      case 'P':
      case 'x':
      case 'z':
      case 'F':
        break;
      case 'q':
      case 'Q':
      case 'l':
      case 'L':
        skipBlank();
        while (i < n && /[0-9]/.test(script[i]!)) i++;
        break;
      case 'b':
      case 't':
      case 'T':
      case ':':
      case 'v':
        while (i < n && script[i] !== ';' && script[i] !== '\n') i++;
        break;
      case 'a':
      case 'i':
      case 'c':
        // Text to the end of the line; a backslash before the newline continues it.
        while (i < n && script[i] !== '\n') i += script[i] === '\\' ? 2 : 1;
        break;
      case 'r':
      case 'R':
        toEol();
        break;
      case 'w':
      case 'W':
        effect = 'write';
        toEol();
        break;
      case 'e':
        return 'code';
      case 's':
      case 'y': {
        const delim = script[i++];
        if (delim === undefined || delim === '\n' || delim === '\\') return 'code';
        if (!part(delim, true) || !part(delim, cmd === 'y')) return 'code';
        if (cmd === 'y') break;
        for (;;) {
          const f = script[i];
          if (f === undefined || f === ';' || f === '\n' || f === '}' || f === ' ' || f === '\t' || f === '#')
            break;
          if (f === 'e') return 'code';
          if (f === 'w') {
            effect = 'write';
            toEol();
            break;
          }
          if (!/[gpiImM0-9]/.test(f)) return 'code';
          i++;
        }
        break;
      }
      default:
        return 'code';
    }
  }
  return effect;
}

// ---------------------------------------------------------------------------------------------
// tar

const REMOTE_ARCHIVE = 'tar reaches host:file through a remote shell';

/** tar's archive option, however spelled (`-f h:x`, `-fh:x`, `--file h:x`, `--file=h:x`): `host:file` runs a remote shell. */
const archive: Opt = {
  value: 'required',
  check: (v) => (v === undefined || v.includes(':') ? 'code' : undefined),
  about: REMOTE_ARCHIVE,
};

const TAR: OptionSpec = {
  short: {
    c: write,
    r: write,
    u: write,
    A: write,
    x: write,
    I: codeV,
    F: codeV,
    C: { effect: 'config', value: 'required' },
    g: writeV,
    f: archive,
    T: valued,
    X: valued,
    b: valued,
    H: valued,
    K: valued,
    L: valued,
    N: valued,
    V: valued,
  },
  long: {
    create: write,
    append: write,
    update: write,
    catenate: write,
    concatenate: write,
    extract: write,
    get: write,
    delete: write,
    'use-compress-program': codeV,
    'to-command': codeV,
    'checkpoint-action': codeV,
    'info-script': codeV,
    'new-volume-script': codeV,
    'rmt-command': codeV,
    'rsh-command': codeV,
    directory: { effect: 'config', value: 'required' },
    'listed-incremental': writeV,
    'index-file': writeV,
    'volno-file': writeV,
    file: archive,
    list: {},
    checkpoint: { value: 'optional' },
    verbose: {},
    'to-stdout': {},
    'force-local': {},
    'files-from': valued,
    'exclude-from': valued,
    format: valued,
  },
};

function judgeTar(words: readonly ShellWord[], root: string | undefined): Marked[] {
  // `tar xvf a.tar`: a first word without `-` is a bundle of short options.
  const first = words[1];
  const all =
    first?.value !== undefined && !first.value.startsWith('-') && first.value.length > 0
      ? [words[0]!, { text: `-${first.text}`, value: `-${first.value}` }, ...words.slice(2)]
      : words;
  const marked = scanOptions(all, 1, TAR, 'tar', false, root).marked;
  // An archive named `host:file` is reached through a remote shell, unless --force-local.
  const local = words.some((w) => (w.value ?? '').startsWith('--force-l'));
  return local ? marked.filter((m) => !m.why.startsWith(REMOTE_ARCHIVE)) : marked;
}

// ---------------------------------------------------------------------------------------------
// npm, pnpm, yarn

/** Subcommands that run no script of the package nor of its dependencies. */
const PACKAGE_READS: Readonly<Record<string, ReadonlySet<string>>> = {
  npm: new Set([
    'ls',
    'list',
    'll',
    'la',
    'view',
    'v',
    'info',
    'show',
    'outdated',
    'whoami',
    'ping',
    'help',
    'search',
    'why',
    'explain',
    'root',
    'prefix',
    'fund',
    'query',
    'sbom',
  ]),
  pnpm: new Set(['ls', 'list', 'll', 'la', 'outdated', 'why', 'root', 'help', 'licenses', 'view', 'info']),
  yarn: new Set(['list', 'info', 'why', 'outdated', 'help', 'licenses']),
};

/** Options of npm, pnpm and yarn that change where they work or what configuration they read. */
const PACKAGE_OPTIONS: OptionSpec = {
  short: { C: { effect: 'config', value: 'required' }, c: codeV },
  long: {
    prefix: configV,
    dir: configV,
    cwd: configV,
    userconfig: configV,
    globalconfig: configV,
    'script-shell': codeV,
    'node-options': codeV,
    call: codeV,
    package: codeV,
    'use-node-version': configV,
    registry: configV,
  },
};

/** Options allowed before the subcommand: they take no value, so the subcommand is the next word. */
const PACKAGE_FLAGS = new Set([
  '-s',
  '-q',
  '-d',
  '-y',
  '--silent',
  '--quiet',
  '--json',
  '--yes',
  '--offline',
  '--ignore-scripts',
  '--workspaces',
  '-ws',
  '--if-present',
  '--no-color',
  '--color',
  '--verbose',
]);

/** Subcommands whose next word names the script or package that runs. */
const PACKAGE_RUNS = new Set(['run', 'run-script', 'rum', 'urn', 'exec', 'x', 'dlx', 'create']);

function judgePackageManager(words: readonly ShellWord[], root: string | undefined): Marked[] {
  const tool = baseOf(words);
  const marked = scanOptions(words, 1, PACKAGE_OPTIONS, tool, false, root).marked;
  let at = 1;
  while (at < words.length) {
    const w = words[at]!.value;
    if (w === undefined || !w.startsWith('-')) break;
    if (!PACKAGE_FLAGS.has(w) && !/^--[a-z-]+=/.test(w)) {
      marked.push({ index: at, effect: 'code', why: `${tool} ${w}: the next word may be its value` });
      return marked;
    }
    at++;
  }
  const sub = words[at]?.value;
  if (at >= words.length) {
    // Marked where the subcommand would be, so that a grant covering `yarn` alone does not cover it.
    if (tool === 'yarn')
      marked.push({ index: at, effect: 'code', why: 'yarn alone installs, running scripts' });
    return marked;
  }
  if (sub === 'config' && ['get', 'list', 'ls'].includes(words[at + 1]?.value ?? '')) return marked;
  if (sub === undefined || !PACKAGE_READS[tool]!.has(sub)) {
    marked.push({
      index: at,
      effect: 'code',
      why: `${tool} ${words[at]!.text} runs package scripts or programs`,
    });
    // `npm run build`, `npm exec pkg`: the next word names the script or program that runs.
    let next = at + 1;
    if (sub !== undefined && PACKAGE_RUNS.has(sub)) {
      while (next < words.length && (words[next]!.value ?? '').startsWith('-')) next++;
      if (next < words.length)
        marked.push({
          index: next,
          effect: 'code',
          why: `${tool} ${sub} ${words[next]!.text} names what runs`,
        });
      next++;
    }
    // The words the script or program is given: it reads them as it likes, so none may name a
    // path outside the workspace.
    marked.push(...outsideOptions(words, next, root, `${tool} ${words[at]!.text} passes`, true));
  }
  return marked;
}

// ---------------------------------------------------------------------------------------------
// make

const MAKE: OptionSpec = {
  short: {
    f: codeV,
    C: { effect: 'config', value: 'required' },
    E: codeV,
    I: codeV,
    o: valued,
    W: valued,
    O: { value: 'optional' },
    j: { value: 'optional' },
    l: { value: 'optional' },
  },
  long: {
    file: codeV,
    makefile: codeV,
    directory: { effect: 'config', value: 'required' },
    eval: codeV,
    'include-dir': codeV,
  },
};

function judgeMake(words: readonly ShellWord[], root: string | undefined): Marked[] {
  const scan = scanOptions(words, 1, MAKE, 'make', false, root);
  const marked: Marked[] = [{ index: 0, effect: 'code', why: 'make runs the recipes of a Makefile' }];
  marked.push(...scan.marked);
  for (const i of scan.positional) {
    const w = words[i]!.value;
    if (w?.includes('='))
      marked.push({
        index: i,
        effect: 'code',
        why: `make ${words[i]!.text}: a variable such as SHELL runs code`,
      });
  }
  return marked;
}

// ---------------------------------------------------------------------------------------------
// Interpreters and package runners: they run code by nature (the script a grant names is the
// person's choice); the options that take code on the command line are marked.

function interpreter(about: string, spec: OptionSpec): Entry {
  return {
    about,
    judge: (words, root) => [
      { index: 0, effect: 'code', why: `${baseOf(words)} runs a program` },
      ...scanOptions(words, 1, spec, baseOf(words), true, root).marked,
    ],
  };
}

/** `npx pkg`: the first word that is not an option names the package that runs. */
function judgePackageRunner(words: readonly ShellWord[], root: string | undefined): Marked[] {
  const scan = scanOptions(words, 1, PACKAGE_OPTIONS, baseOf(words), true, root);
  const marked: Marked[] = [
    { index: 0, effect: 'code', why: `${baseOf(words)} runs a package` },
    ...scan.marked,
  ];
  const first = scan.positional[0];
  if (first !== undefined)
    marked.push({
      index: first,
      effect: 'code',
      why: `${baseOf(words)} ${words[first]!.text} names what runs`,
    });
  return marked;
}

const PYTHON: OptionSpec = { short: { c: codeV, m: codeV, W: valued, X: valued, Q: valued } };

// ---------------------------------------------------------------------------------------------
// The table

const TO_STDOUT = ['-'];

/**
 * Commands known not to run their arguments as code, each with the words that run code, write a
 * file or change directory or configuration. Everything not here may run code.
 */
const TABLE: Readonly<Record<string, Entry>> = {
  git: { about: 'git: global -c/-C/--git-dir/--exec-path, subcommand options', judge: judgeGit },
  find: { about: 'find: -exec/-execdir/-ok/-okdir run; -delete, -fprint*, -fls write', judge: judgeFind },
  sed: {
    about: 'sed: the e command and s///e run; w, s///w and -i write; -f runs an unseen script',
    judge: judgeSed,
  },
  tar: {
    about: 'tar: compress programs, --to-command, checkpoint actions run; modes c/r/u/A/x write; -C',
    judge: judgeTar,
  },
  npm: { about: 'npm: every subcommand but the reading ones runs scripts', judge: judgePackageManager },
  pnpm: { about: 'pnpm: every subcommand but the reading ones runs scripts', judge: judgePackageManager },
  yarn: { about: 'yarn: every subcommand but the reading ones runs scripts', judge: judgePackageManager },
  make: {
    about: 'make: runs the recipes of the workspace Makefile; -f, --eval, -I, VAR=value run code',
    judge: judgeMake,
  },
  rg: plain('rg: --pre, --pre-glob and --hostname-bin run programs', {
    long: { pre: codeV, 'pre-glob': codeV, 'hostname-bin': codeV },
  }),
  grep: plain('grep: reads only'),
  egrep: plain('egrep: reads only'),
  fgrep: plain('fgrep: reads only'),
  curl: plain(
    'curl: -o/-O/--output-dir/-D/-c/--trace… write; -K reads a configuration; -T/-d @/-F @/--key… send or use a file, outside the workspace not under a grant',
    {
      short: {
        T: readsV,
        d: readsV,
        F: readsV,
        H: readsV,
        E: readsV,
        b: readsV,
        o: { effect: 'write', value: 'required', harmless: TO_STDOUT },
        O: write,
        J: write,
        D: { effect: 'write', value: 'required', harmless: TO_STDOUT },
        c: writeV,
        K: configV,
      },
      long: {
        output: { effect: 'write', value: 'required', harmless: TO_STDOUT },
        'output-dir': writeV,
        'remote-name': write,
        'remote-name-all': write,
        'remote-header-name': write,
        'dump-header': { effect: 'write', value: 'required', harmless: TO_STDOUT },
        'cookie-jar': writeV,
        trace: writeV,
        'trace-ascii': writeV,
        stderr: writeV,
        libcurl: writeV,
        'etag-save': writeV,
        hsts: writeV,
        'alt-svc': writeV,
        config: configV,
        'upload-file': readsV,
        data: readsV,
        'data-ascii': readsV,
        'data-binary': readsV,
        'data-urlencode': readsV,
        json: readsV,
        form: readsV,
        header: readsV,
        'proxy-header': readsV,
        cookie: readsV,
        cert: readsV,
        key: readsV,
        cacert: readsV,
        capath: readsV,
        'netrc-file': readsV,
        'proxy-cert': readsV,
        'proxy-key': readsV,
        variable: readsV,
        'url-query': readsV,
        // A local service's socket (a container daemon's runs what it is sent).
        'unix-socket': readsV,
        'abstract-unix-socket': codeV,
      },
    },
  ),
  wget: plain(
    'wget: -O/-o/-a/-P/--save-cookies… write; -e, --config and --use-askpass may run a program; --post-file/--body-file/-i… send or use a file, outside the workspace not under a grant',
    {
      short: {
        i: readsV,
        O: { effect: 'write', value: 'required', harmless: TO_STDOUT },
        o: writeV,
        a: writeV,
        P: writeV,
        e: codeV,
        x: write,
      },
      long: {
        'output-document': { effect: 'write', value: 'required', harmless: TO_STDOUT },
        'output-file': writeV,
        'append-output': writeV,
        'directory-prefix': writeV,
        'save-cookies': writeV,
        'warc-file': writeV,
        'rejected-log': writeV,
        // A wgetrc command may name a program (use_askpass): code.
        execute: codeV,
        config: codeV,
        'use-askpass': codeV,
        'force-directories': write,
        'post-file': readsV,
        'body-file': readsV,
        'input-file': readsV,
        'load-cookies': readsV,
        certificate: readsV,
        'private-key': readsV,
        'ca-certificate': readsV,
        'ca-directory': readsV,
        'crl-file': readsV,
      },
    },
  ),
  sort: plain('sort: -o writes; --compress-program runs a program; -T writes temporary files', {
    short: { o: writeV, T: writeV },
    long: { output: writeV, 'compress-program': codeV, 'temporary-directory': writeV },
  }),
  ls: plain('ls: reads only'),
  cat: plain('cat: reads only'),
  head: plain('head: reads only'),
  tail: plain('tail: reads only'),
  wc: plain('wc: reads only'),
  echo: plain('echo: prints only'),
  printf: plain('printf: prints only (printf -v is outside the grammar)'),
  pwd: plain('pwd: prints only'),
  true: plain('true: does nothing'),
  ':': plain(': does nothing'),
  false: plain('false: does nothing'),
  test: plain('test: compares only (-v is outside the grammar)'),
  '[': plain('[: compares only'),
  cd: plain('cd: changes the directory of later commands of the line'),
  pushd: plain('pushd: changes the directory of later commands of the line'),
  popd: plain('popd: changes the directory of later commands of the line'),
  uniq: {
    about: 'uniq: reads; a second file operand is written',
    judge: (words, root) => {
      const scan = scanOptions(words, 1, UNIQ, 'uniq', false, root);
      const output = scan.positional[1];
      return output === undefined
        ? scan.marked
        : [...scan.marked, { index: output, effect: 'write', why: 'uniq writes its second file operand' }];
    },
  },
  cut: plain('cut: reads only'),
  tr: plain('tr: reads only'),
  diff: plain('diff: reads only'),
  cmp: plain('cmp: reads only'),
  comm: plain('comm: reads only'),
  file: plain('file: reads; -C compiles a magic file, writing it', {
    short: { C: write, m: valued, e: valued, f: valued, F: valued, P: valued },
    long: {
      compile: write,
      'magic-file': valued,
      exclude: valued,
      'exclude-quiet': valued,
      'files-from': valued,
      separator: valued,
      parameter: valued,
    },
  }),
  stat: plain('stat: reads only'),
  du: plain('du: reads only'),
  df: plain('df: reads only'),
  basename: plain('basename: prints only'),
  dirname: plain('dirname: prints only'),
  realpath: plain('realpath: prints only'),
  readlink: plain('readlink: prints only'),
  which: plain('which: prints only'),
  whoami: plain('whoami: prints only'),
  id: plain('id: prints only'),
  date: plain('date: prints; -s sets the clock', {
    short: { s: configV, f: valued, d: valued, r: valued },
    long: { set: configV },
  }),
  uname: plain('uname: prints only'),
  sleep: plain('sleep: waits only'),
  seq: plain('seq: prints only'),
  nl: plain('nl: reads only'),
  paste: plain('paste: reads only'),
  jq: plain('jq: reads only'),
  tree: plain('tree: reads; -o writes', { short: { o: writeV } }),
  base64: plain('base64: reads only'),
  md5sum: plain('md5sum: reads only'),
  sha1sum: plain('sha1sum: reads only'),
  sha256sum: plain('sha256sum: reads only'),
  mkdir: plain('mkdir: creates the directories named'),
  rmdir: plain('rmdir: removes the directories named'),
  touch: plain('touch: creates or touches the files named'),
  rm: plain('rm: removes the files named'),
  cp: plain('cp: copies to the last operand; -t names the target', {
    short: { t: writeV },
    long: { 'target-directory': writeV },
  }),
  mv: plain('mv: moves to the last operand; -t names the target', {
    short: { t: writeV },
    long: { 'target-directory': writeV },
  }),
  ln: plain('ln: links to the last operand; -t names the target', {
    short: { t: writeV },
    long: { 'target-directory': writeV },
  }),
  chmod: plain('chmod: changes the modes of the files named'),
  tee: plain('tee: writes the files named'),
  python: interpreter('python: runs a script; -c and -m run code given on the line', PYTHON),
  python3: interpreter('python3: runs a script; -c and -m run code given on the line', PYTHON),
  node: interpreter('node: runs a script; -e, -p, -r, --import and --loader run code given on the line', {
    short: { e: codeV, p: codeV, r: codeV },
    long: {
      eval: codeV,
      print: codeV,
      require: codeV,
      import: codeV,
      loader: codeV,
      'experimental-loader': codeV,
    },
  }),
  perl: interpreter('perl: runs a script; -e, -E and -M run code given on the line', {
    short: { e: codeV, E: codeV, M: codeV, m: codeV, I: configV },
  }),
  ruby: interpreter('ruby: runs a script; -e and -r run code given on the line', {
    short: { e: codeV, r: codeV, I: configV },
  }),
  npx: { about: 'npx: runs the package it names', judge: judgePackageRunner },
  man: plain('man: shows a page; -P, -H and -p name programs it runs, -C a configuration naming them', {
    short: { P: codeV, H: { effect: 'code', value: 'optional' }, p: codeV, C: codeV },
    long: {
      pager: codeV,
      html: { effect: 'code', value: 'optional' },
      preprocessor: codeV,
      // Its DEFINE lines name the programs man runs (tbl, nroff, pager).
      'config-file': codeV,
    },
  }),
};

/** The table's rows, for the documentation check: name and what the row says. */
export const COMMAND_TABLE: ReadonlyMap<string, string> = new Map(
  Object.entries(TABLE).map(([name, entry]) => [name, entry.about]),
);

/**
 * Why a command may run code the policy cannot see, or `undefined` when the table says it is a
 * leaf: in the table, and none of its words marked `code`.
 */
export function mayRunCode(words: readonly ShellWord[]): string | undefined {
  const name = words[0]?.value;
  if (name === undefined) return 'the command name is computed when it runs';
  const base = name.slice(name.lastIndexOf('/') + 1);
  const entry = Object.hasOwn(TABLE, base) ? TABLE[base]! : undefined;
  if (!entry) return `${base} is not in the table of commands that run no code`;
  // Words it is given from its input may be any option, one that runs code among them.
  if (!entry.pure && words.some(isInputWord))
    return `${base} is given arguments from its input, which may be options that run code`;
  // A writer given paths from its input may write git's files (`echo .git/config | xargs cp x`).
  if (base !== 'git' && !Object.hasOwn(READERS, base) && words.some(isInputWord))
    return `${base} is given paths from its input, which may name files whose code git or another leaf runs`;
  const marked = entry.judge(words, undefined).find((m) => m.effect === 'code');
  return marked?.why ?? plantsGitCode(words, base);
}

/**
 * The words of a git or package-manager command with its global options left out (`git --no-pager
 * push` is `git push`, `npm -s publish` is `npm publish`), for deny and ask rules that name a
 * subcommand; `undefined` when there are none to leave out. An option that may take a value
 * leaves the subcommand unknown, and the table marks it as running code.
 */
export function withoutGlobalOptions(words: readonly ShellWord[]): readonly ShellWord[] | undefined {
  const name = words[0]?.value;
  if (name === undefined) return undefined;
  const base = name.slice(name.lastIndexOf('/') + 1);
  let at: number | undefined;
  if (base === 'git') {
    at = scanOptions(words, 1, GIT_GLOBAL, 'git', true).positional[0];
  } else if (base === 'npm' || base === 'pnpm' || base === 'yarn') {
    at = 1;
    while (
      at < words.length &&
      (PACKAGE_FLAGS.has(words[at]!.value ?? '') || /^--[a-z-]+=/.test(words[at]!.value ?? ''))
    )
      at++;
  }
  if (at === undefined || at <= 1 || at >= words.length) return undefined;
  return [words[0]!, ...words.slice(at)];
}

/**
 * Why a word of a command that writes or changes directory names git's own files, if one does:
 * `.git` (its hooks and config run as code on the next git command), `HEAD` (with `objects/` and
 * `refs/` beside it, a directory is a repository whose config the next git command obeys), or a
 * configuration file of git's outside a repository (`~/.gitconfig`, `~/.config/git/config`,
 * `/etc/gitconfig`). Such a word plants code, so the command is not a leaf for deny and ask rules.
 */
export function plantsGitCode(words: readonly ShellWord[], base: string): string | undefined {
  if (base === 'git' || Object.hasOwn(READERS, base)) return undefined;
  for (const w of words.slice(1)) {
    // A computed word is judged by its text (`$HOME/.gitconfig`); a path may sit inside a sed
    // script (`w .git/config`) or be attached to an option (`-o.git/config`).
    const text = (w.value ?? w.text).toLowerCase();
    const segments = text.split(/[\s/=]/);
    if (
      /\.git(\/|$|\s)|\.?gitconfig|(^|[\s/=])git\/config/.test(text) ||
      segments.includes('.git') ||
      segments.includes('head')
    )
      return `${base} ${w.text} writes where git finds hooks and configuration it runs`;
    const other = segments.find((part) => Object.hasOwn(PROGRAM_CONFIGS, part));
    if (other !== undefined) return `${base} ${w.text} writes ${PROGRAM_CONFIGS[other]}`;
  }
  return undefined;
}

/**
 * Configuration files the leaves of the table read from the home or `/etc` that name programs
 * they run: ssh's (git's ssh transport runs its ProxyCommand), man's (`DEFINE`), wget's
 * (`use_askpass`), and curl's (it writes where its `output` says).
 */
const PROGRAM_CONFIGS: Readonly<Record<string, string>> = {
  '.ssh': "ssh's configuration, whose ProxyCommand git's ssh transport runs",
  ssh_config: "ssh's configuration, whose ProxyCommand git's ssh transport runs",
  '.manpath': "man's configuration, whose DEFINE lines name the programs man runs",
  'man_db.conf': "man's configuration, whose DEFINE lines name the programs man runs",
  '.wgetrc': "wget's configuration, whose use_askpass names a program wget runs",
  wgetrc: "wget's configuration, whose use_askpass names a program wget runs",
  '.curlrc': "curl's configuration, which curl obeys on every run",
};

/** Rows that only read or print: a word naming git's files is read, not written. */
const READERS: Readonly<Record<string, true>> = Object.fromEntries(
  [
    'ls',
    'cat',
    'head',
    'tail',
    'wc',
    'grep',
    'egrep',
    'fgrep',
    'rg',
    'cut',
    'tr',
    'diff',
    'cmp',
    'comm',
    'stat',
    'du',
    'df',
    'basename',
    'dirname',
    'realpath',
    'readlink',
    'which',
    'nl',
    'paste',
    'jq',
    'base64',
    'md5sum',
    'sha1sum',
    'sha256sum',
    'echo',
    'printf',
    'test',
    '[',
  ].map((n) => [n, true]),
);

/**
 * The first word past the `covered` words of a prefix grant (`Bash(git log:*)` covers two) that the
 * grant does not cover: one the table marks (runs code, writes a file, changes the directory or
 * configuration), or, for a command not in the table, an option naming a path outside
 * `workspaceRoot` (or any absolute path without a root).
 * `undefined` when the grant covers every word.
 */
export function grantProblem(
  words: readonly ShellWord[],
  covered: number,
  workspaceRoot: string | undefined,
): Marked | undefined {
  const name = words[0]?.value;
  if (name === undefined)
    return { index: 0, effect: 'code', why: 'the command name is computed when it runs' };
  const base = name.slice(name.lastIndexOf('/') + 1);
  const entry = Object.hasOwn(TABLE, base) ? TABLE[base]! : undefined;
  if (entry) return entry.judge(words, workspaceRoot).find((m) => m.index >= covered);
  return outsideOptions(words, covered, workspaceRoot, base).find(() => true);
}

/**
 * The options from `words[from]` on (up to `--`) that name a path outside the workspace: attached
 * (`--out=/x`, `-o/x`) or as the next word (`-o /x`). For commands not in the table, and the words
 * a package script is given.
 */
function outsideOptions(
  words: readonly ShellWord[],
  from: number,
  workspaceRoot: string | undefined,
  what: string,
  pastEnd = false,
): Marked[] {
  for (let i = Math.max(1, from); i < words.length; i++) {
    const w = words[i]!.value;
    const computed = (): Marked[] => [
      {
        index: i,
        effect: 'write',
        why: `${what} ${words[i]!.text}: an option whose value is computed when it runs`,
      },
    ];
    // `--out=$HOME/x`, `-o$X`, `--out $X`: the value may name any path.
    if (w === undefined) {
      if (words[i]!.text.startsWith('-')) return computed();
      continue;
    }
    if (w === '--') {
      // npm hands what follows `--` to the script, which reads its own options there.
      if (pastEnd) continue;
      return [];
    }
    if (!w.startsWith('-') || w === '-') continue;
    const eq = w.indexOf('=');
    const values = [eq === -1 ? undefined : w.slice(eq + 1), w.startsWith('--') ? undefined : w.slice(2)];
    const next = words[i + 1]?.value;
    if (next !== undefined && !next.startsWith('-')) values.push(next);
    if (i + 1 < words.length && next === undefined) return computed();
    const outside =
      values.some((v) => v !== undefined && pathOutside(v, workspaceRoot)) ||
      (!w.startsWith('--') && attachedPathOutside(w, workspaceRoot));
    if (outside)
      return [{ index: i, effect: 'write', why: `${what} ${w}, naming a path outside the workspace` }];
  }
  return [];
}

/**
 * True when a cluster of short options (`-vo/etc/x`, `-xf~/y`, `-ab../z`) may carry a path outside
 * `root` attached after some letter: the rest of the word from its first `/` or `~`, or any `..`
 * segment in it. One pass over the word, whichever letter takes the value.
 */
function attachedPathOutside(word: string, root: string | undefined): boolean {
  const at = word.slice(2).search(/[/~]/);
  if (at !== -1 && pathOutside(word.slice(2 + at), root)) return true;
  return word.split('/').some((part, i) => part === '..' || (i === 0 && part.endsWith('..')));
}

/** True when `value` reads as a path outside `root` (judged as text: `~`, `..`, absolute paths). */
export function pathOutside(value: string, root: string | undefined): boolean {
  // A `file:` URL in any case of its scheme (`FILE:///etc/x`, `file:%2Fetc%2Fx`) names the path it
  // decodes to as well; one of another host, or that does not parse, cannot be placed.
  if (/^file:/i.test(value)) {
    const readings = pathReadings(value);
    if (readings === undefined) return true;
    if (readings.slice(1).some((p) => pathOutside(p, root))) return true;
  }
  const v = /^file:/i.test(value) ? value.slice(5) : value;
  if (v.startsWith('~')) return true;
  if (v.split('/').includes('..')) return true;
  if (!v.startsWith('/')) return false;
  if (root === undefined) return true;
  const r = posix.normalize(root).replace(/\/+$/, '') || '/';
  const p = posix.normalize(v);
  return !(p === r || p.startsWith(r === '/' ? '/' : `${r}/`));
}
