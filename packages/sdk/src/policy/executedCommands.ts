import { readBashLine } from './bashGrammar.js';
import { inputWord, isInputWord, mayRunCode, plantsGitCode } from './commandTable.js';
import type { ShellParser } from './shell.js';
import type { ShellWord } from './shellWords.js';

/**
 * What one simple command runs, as far as it can be known before it runs: the command itself and
 * whatever its wrappers run (docs/permissions-policy.md, "Deny rules see the real command").
 * Deny and ask rules are matched against every run.
 */
export interface ExecutedCommands {
  /**
   * The word lists of the commands that run, the command itself first; each name is reduced to
   * its base name (`/bin/rm` → `rm`). Leading assignments are never part of them.
   */
  readonly runs: readonly (readonly ShellWord[])[];
  /**
   * Why part of what runs cannot be known before it runs (a command name computed from `$VAR` or
   * `$(…)`, `eval` of a computed string, `source` of a variable, a wrapper option we do not know),
   * if so. A deny rule can then not be checked.
   */
  readonly unchecked?: string;
  /**
   * Why one of the runs may run code the policy cannot see, if so: a command that the command
   * table does not list as a leaf, or uses an option the table marks as running code
   * ({@link mayRunCode}), or a wrapper that runs a file or its input (`bash ./x.sh`, `source x`).
   * A deny or ask rule cannot be checked on such a line; an allow rule is not affected.
   */
  readonly mayRunCode?: string;
}

/** find's options that write a file. */
const FIND_WRITES = new Set(['-fprint', '-fprint0', '-fprintf', '-fls']);

/** find's options that run a command, in the directory of what it found for the -dir ones. */
const FIND_RUNS = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/** How deep wrappers and `bash -c` strings are followed; deeper nesting cannot be checked. */
const MAX_DEPTH = 8;

/**
 * The commands `words` runs: itself, and through the wrappers `command`, `builtin`, `exec`, `env`,
 * `nice`, `nohup`, `time`, `timeout`, `sudo`, `doas`, `xargs`, `find -exec`, `coproc`, `eval`
 * and `bash`/`sh`/`zsh`/`dash`/`ksh -c` (whose string is parsed again with `shell`), recursively.
 */
export function executedCommands(words: readonly ShellWord[], shell: ShellParser): ExecutedCommands {
  const runs: ShellWord[][] = [];
  let unchecked: string | undefined;
  let opaque: string | undefined;
  const visit = (command: readonly ShellWord[], depth: number): void => {
    if (command.length === 0) return;
    const [name, ...args] = command;
    if (name!.value === undefined) {
      unchecked ??= `the command name ${name!.text} is computed when it runs`;
      return;
    }
    const base = baseName(name!.value);
    runs.push([{ text: name!.text, value: base }, ...args]);
    const wrapper = Object.hasOwn(WRAPPERS, base) ? WRAPPERS[base]! : undefined;
    if (!wrapper) {
      opaque ??= mayRunCode([{ text: name!.text, value: base }, ...args]);
      return;
    }
    // find writes with -fprint/-fprintf/-fls as well as running: where git finds code, it plants it.
    if (base === 'find' && args.some((w) => FIND_WRITES.has(w.value ?? '') || FIND_RUNS.has(w.value ?? '')))
      opaque ??= plantsGitCode([{ text: name!.text, value: base }, ...args], base);
    if (depth >= MAX_DEPTH) {
      unchecked ??= 'the command nests too deeply to be checked';
      return;
    }
    const inner = wrapper(args);
    if ('unchecked' in inner) {
      unchecked ??= `${base}: ${inner.unchecked}`;
      return;
    }
    if (inner.opaque !== undefined) opaque ??= `${base} ${inner.opaque}`;
    for (const run of inner.runs) visit(run, depth + 1);
    if (inner.script === undefined) return;
    // A string run as code is read exactly only inside the grammar, as a line is: outside it
    // (`bash -c "test -v 'a[\$(…)]'"`, `${_@P}`, `PATH=. cat`), what it runs cannot be known.
    const exact = readBashLine(inner.script);
    if (!exact.ok) opaque ??= `${base} runs a string outside the grammar (${exact.reason})`;
    const split = shell.split(inner.script);
    if (!split.ok) {
      unchecked ??= `${base} runs a string that does not parse (${split.reason})`;
      return;
    }
    for (const c of split.commands) visit(c.words, depth + 1);
  };
  visit(words, 0);
  return {
    runs,
    ...(unchecked !== undefined ? { unchecked } : {}),
    ...(opaque !== undefined ? { mayRunCode: opaque } : {}),
  };
}

/**
 * The last path segment of a command name: what bash looks up is the file, wherever it is. A
 * name whose last segment is `.` or `..` (`/.`, `bin/..`) names a directory, which the kernel
 * refuses to run: it is kept whole, so it is never read as the builtin `.` or as a wrapper.
 */
export function baseName(name: string): string {
  const segments = name.split('/').filter((s) => s.length > 0);
  const last = segments.at(-1);
  if (last === undefined) return name;
  return name.includes('/') && (last === '.' || last === '..') ? name : last;
}

/**
 * One level of a wrapper (`env`, `nice`, `xargs`, `sudo`, `bash -c`, …): the word lists it runs,
 * a string of code it runs, or why that cannot be known; `undefined` for a command that is no
 * wrapper.
 */
export function wrapped(words: readonly ShellWord[]): Inner | undefined {
  const name = words[0]?.value;
  if (name === undefined) return undefined;
  const base = baseName(name);
  return Object.hasOwn(WRAPPERS, base) ? WRAPPERS[base]!(words.slice(1)) : undefined;
}

/** What a wrapper runs: word lists, and/or a string of shell code; or why that cannot be known. */
export type Inner =
  | {
      readonly runs: readonly (readonly ShellWord[])[];
      readonly script?: string;
      /** What the wrapper runs that is not in `runs` nor `script` (a file, its input). */
      readonly opaque?: string;
    }
  | { readonly unchecked: string };

const NOTHING: Inner = { runs: [] };

/** The options a wrapper takes, for finding where its command starts. */
interface OptionSpec {
  /** Short options without a value. */
  readonly flags?: string;
  /** Short options with a value (`-u root`, `-uroot`). */
  readonly valued?: string;
  /** Short options whose value, if any, is attached (`xargs -i{}`). */
  readonly attached?: string;
  /** Long options without a value (`--login`; `--name=x` is accepted too). */
  readonly longFlags?: readonly string[];
  /** Long options with a value (`--user root`, `--user=root`). */
  readonly longValued?: readonly string[];
  /** `-10` style numeric options (nice). */
  readonly numeric?: boolean;
}

interface Options {
  /** Index of the first word after the options. */
  readonly next: number;
  /** The options seen (short letters and long names), with their values. */
  readonly seen: ReadonlyMap<string, string | undefined>;
}

/** Reads the options at the start of `args`. An option we do not know makes the command unknowable. */
function readOptions(args: readonly ShellWord[], spec: OptionSpec): Options | { unchecked: string } {
  const seen = new Map<string, string | undefined>();
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i]!.value;
    if (word === undefined) return { unchecked: `the option ${args[i]!.text} is computed when it runs` };
    if (word === '--') return { next: i + 1, seen };
    if (!word.startsWith('-') || word === '-') break;
    if (spec.numeric && /^-\d+$/.test(word)) continue;
    if (word.startsWith('--')) {
      const [name, value] = splitLong(word.slice(2));
      if (spec.longValued?.includes(name)) {
        if (value !== undefined) seen.set(name, value);
        else seen.set(name, args[++i]?.value);
      } else if (spec.longFlags?.includes(name)) {
        seen.set(name, value);
      } else {
        return { unchecked: `unknown option --${name}` };
      }
      continue;
    }
    for (let j = 1; j < word.length; j++) {
      const letter = word[j]!;
      if (spec.valued?.includes(letter)) {
        const rest = word.slice(j + 1);
        seen.set(letter, rest.length > 0 ? rest : args[++i]?.value);
        break;
      }
      if (spec.attached?.includes(letter)) {
        seen.set(letter, word.slice(j + 1) || undefined);
        break;
      }
      if (!spec.flags?.includes(letter)) return { unchecked: `unknown option -${letter}` };
      seen.set(letter, undefined);
    }
  }
  return { next: i, seen };
}

function splitLong(option: string): [string, string | undefined] {
  const eq = option.indexOf('=');
  return eq === -1 ? [option, undefined] : [option.slice(0, eq), option.slice(eq + 1)];
}

/** The command after a wrapper's options: `args` from `spec`'s first non-option word. */
function after(
  args: readonly ShellWord[],
  spec: OptionSpec,
  stop?: (seen: Options['seen']) => boolean,
): Inner {
  const options = readOptions(args, spec);
  if ('unchecked' in options) return options;
  if (stop?.(options.seen)) return NOTHING;
  return { runs: [args.slice(options.next)] };
}

/** `NAME=value` words, which `env` and `sudo` take before the command. */
function skipAssignments(args: readonly ShellWord[], from: number): number {
  let i = from;
  while (i < args.length && /^[A-Za-z_][A-Za-z0-9_]*=/.test(args[i]!.value ?? '')) i++;
  return i;
}

/**
 * Variables known to change no program a command runs nor the code it loads: locale, time zone,
 * colours and the terminal's size. Every other one may (`PATH`, `LD_PRELOAD`, `GIT_CONFIG_*`,
 * `GIT_EXTERNAL_DIFF`, `PAGER`, `BASH_ENV`, `NODE_OPTIONS`, …).
 */
const HARMLESS_VARIABLE = /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR|COLUMNS|LINES)=/;

/**
 * Why the `NAME=value` words of `env`/`sudo` in `args[from..to)` may make the command they run run
 * other code, if they do: any variable but the {@link HARMLESS_VARIABLE} ones.
 */
function assignmentsOpaque(args: readonly ShellWord[], from: number, to: number): string | undefined {
  for (let i = from; i < to; i++) {
    const value = args[i]!.value!;
    if (!HARMLESS_VARIABLE.test(value))
      return `sets ${value.slice(0, value.indexOf('='))}, which may change what the command runs`;
  }
  return undefined;
}

const SHELLS = ['bash', 'sh', 'zsh', 'dash', 'ksh', 'ash', 'mksh', 'rbash'];

/** `bash [options] -c string`: the string is shell code. Without `-c` it runs a file or stdin. */
function shellWrapper(args: readonly ShellWord[]): Inner {
  let command = false;
  let i = 0;
  for (; i < args.length; i++) {
    const word = args[i]!.value;
    if (word === undefined) return { unchecked: `the option ${args[i]!.text} is computed when it runs` };
    if (word === '--' || word === '-') {
      i++;
      break;
    }
    if (!/^[-+]./.test(word)) break;
    if (word.startsWith('--')) {
      if (word === '--rcfile' || word === '--init-file') i++;
      continue;
    }
    if (word.includes('c')) command = true;
    // `-o name`, `+O name`: the option names a shell option.
    if (/[oO]/.test(word)) i++;
  }
  if (!command) return { runs: [], opaque: 'runs a script file or its input' };
  const script = args[i];
  if (script === undefined) return { runs: [], opaque: 'runs its input' };
  if (script.value === undefined) return { unchecked: 'the command string is computed when it runs' };
  return { runs: [], script: script.value };
}

/** `find … -exec cmd … ;` (and `-execdir`, `-ok`, `-okdir`), as often as it appears. */
function findWrapper(args: readonly ShellWord[]): Inner {
  // Words from xargs's input may be `-exec …` themselves.
  if (args.some(isInputWord)) return { unchecked: 'it is given arguments from its input' };
  const runs: ShellWord[][] = [];
  for (let i = 0; i < args.length; i++) {
    if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i]!.value ?? '')) continue;
    const run: ShellWord[] = [];
    for (i++; i < args.length && args[i]!.value !== ';' && args[i]!.value !== '+'; i++) run.push(args[i]!);
    runs.push(run);
  }
  return { runs };
}

/** `eval words…`: the words joined by spaces are shell code. */
function evalWrapper(args: readonly ShellWord[]): Inner {
  if (args.some((w) => w.value === undefined))
    return { unchecked: 'eval runs a string computed when it runs' };
  return args.length === 0 ? NOTHING : { runs: [], script: args.map((w) => w.value).join(' ') };
}

/** `source file` / `. file`: the file is not checked, but a computed file name is a computed command. */
function sourceWrapper(args: readonly ShellWord[]): Inner {
  return args[0] !== undefined && args[0].value === undefined
    ? { unchecked: 'it runs a file whose name is computed when it runs' }
    : { runs: [], opaque: 'runs the commands of a file' };
}

function envWrapper(args: readonly ShellWord[]): Inner {
  const options = readOptions(args, {
    flags: 'i0v',
    valued: 'uCSP',
    longFlags: [
      'ignore-environment',
      'null',
      'debug',
      'list-signal-handling',
      'block-signal',
      'default-signal',
      'ignore-signal',
    ],
    longValued: ['unset', 'chdir', 'split-string'],
  });
  if ('unchecked' in options) return options;
  let next = options.next;
  if (args[next]?.value === '-') next++;
  const start = skipAssignments(args, next);
  const split = options.seen.get('S') ?? options.seen.get('split-string');
  if (options.seen.has('S') || options.seen.has('split-string')) {
    // `env -S 'rm -rf' /` splits the string into words of the command.
    if (split === undefined) return { unchecked: 'env -S splits a string computed when it runs' };
    const rest = args.slice(start).map((w) => w.text);
    return { runs: [], script: [split, ...rest].join(' ') };
  }
  const opaque = assignmentsOpaque(args, next, start) ?? chdirOpaque(options.seen, ['C', 'chdir']);
  return { runs: [args.slice(start)], ...(opaque !== undefined ? { opaque } : {}) };
}

/**
 * Why a wrapper's working directory (`env -C DIR`, `sudo -D DIR`) may make what it runs write
 * git's files, if so: DIR names them (`env -C .git/hooks tee post-checkout`) or is computed.
 */
function chdirOpaque(seen: Options['seen'], names: readonly string[]): string | undefined {
  const name = names.find((n) => seen.has(n));
  if (name === undefined) return undefined;
  const dir = seen.get(name);
  if (dir === undefined) return 'runs its command in a directory computed when it runs';
  return plantsGitCode(
    [
      { text: 'cd', value: 'cd' },
      { text: dir, value: dir },
    ],
    'cd',
  );
}

function sudoWrapper(args: readonly ShellWord[]): Inner {
  const options = readOptions(args, {
    flags: 'AbBEeHiKklnNPSsVv',
    valued: 'CDghpRrtTUu',
    longFlags: [
      'askpass',
      'background',
      'bell',
      'edit',
      'help',
      'list',
      'login',
      'non-interactive',
      'preserve-env',
      'preserve-groups',
      'remove-timestamp',
      'reset-timestamp',
      'set-home',
      'shell',
      'stdin',
      'validate',
      'version',
    ],
    longValued: [
      'close-from',
      'chdir',
      'group',
      'host',
      'prompt',
      'chroot',
      'role',
      'type',
      'command-timeout',
      'other-user',
      'user',
    ],
  });
  if ('unchecked' in options) return options;
  if (options.seen.has('e') || options.seen.has('edit')) return { runs: [], opaque: 'runs an editor' };
  const only = ['l', 'list', 'v', 'validate', 'V', 'version', 'help'];
  if (only.some((o) => options.seen.has(o))) return NOTHING;
  const start = skipAssignments(args, options.next);
  const opaque = assignmentsOpaque(args, options.next, start) ?? chdirOpaque(options.seen, ['D', 'chdir']);
  return { runs: [args.slice(start)], ...(opaque !== undefined ? { opaque } : {}) };
}

const XARGS: OptionSpec = {
  flags: '0oprtx',
  valued: 'adEILnPs',
  attached: 'eil',
  longFlags: [
    'null',
    'interactive',
    'no-run-if-empty',
    'open-tty',
    'verbose',
    'exit',
    'show-limits',
    'eof',
    'replace',
    'max-lines',
  ],
  longValued: ['arg-file', 'delimiter', 'max-args', 'max-procs', 'max-chars', 'process-slot-var'],
};

/**
 * `xargs cmd args…`: cmd runs with the words xargs reads from its input (or its `-a` file) after
 * `args`; with `-I R`, `-i` or `--replace`, in place of every `R` inside `args` instead. Those words
 * are unseen ({@link inputWord}): the command name itself when it holds `R`, and options of the
 * command (`xargs find`, `xargs git`, `xargs env`) as much as file names.
 */
function xargsWrapper(args: readonly ShellWord[]): Inner {
  const options = readOptions(args, XARGS);
  if ('unchecked' in options) return options;
  const { seen } = options;
  const replace = seen.has('I')
    ? seen.get('I')
    : seen.has('i') || seen.has('replace')
      ? (seen.get('i') ?? seen.get('replace') ?? '{}')
      : null;
  const command = args.slice(options.next);
  // Without a command xargs runs echo.
  if (command.length === 0) return NOTHING;
  if (replace === null) return { runs: [[...command, inputWord('<words from its input>')]] };
  if (replace === undefined || replace === '')
    return { unchecked: 'the string it replaces with its input cannot be known' };
  return {
    runs: [
      command.map((w) =>
        w.value === undefined || w.value.includes(replace) ? inputWord(`${w.text} (with its input)`) : w,
      ),
    ],
  };
}

/**
 * Wrappers: commands that run the command given in their arguments. Each returns what it runs.
 * An option we do not know makes the run unknowable (it might take the next word as its value).
 */
const WRAPPERS: Readonly<Record<string, (args: readonly ShellWord[]) => Inner>> = {
  command: (args) => after(args, { flags: 'pvV' }, (seen) => seen.has('v') || seen.has('V')),
  builtin: (args) => after(args, {}),
  exec: (args) => after(args, { flags: 'cl', valued: 'a' }),
  env: envWrapper,
  nice: (args) => after(args, { valued: 'n', longValued: ['adjustment'], numeric: true }),
  nohup: (args) => after(args, {}),
  time: (args) =>
    after(args, {
      flags: 'pavq',
      valued: 'fo',
      longValued: ['format', 'output'],
      longFlags: ['append', 'verbose', 'quiet', 'portability'],
    }),
  timeout: (args) => {
    const options = readOptions(args, {
      flags: 'v',
      valued: 'sk',
      longValued: ['signal', 'kill-after'],
      longFlags: ['preserve-status', 'foreground', 'verbose'],
    });
    if ('unchecked' in options) return options;
    // The first word after the options is the duration.
    return { runs: [args.slice(options.next + 1)] };
  },
  sudo: sudoWrapper,
  doas: (args) => after(args, { flags: 'nsL', valued: 'uC' }),
  xargs: xargsWrapper,
  find: findWrapper,
  coproc: (args) => ({ runs: [args] }),
  eval: evalWrapper,
  source: sourceWrapper,
  '.': sourceWrapper,
  ...Object.fromEntries(SHELLS.map((name) => [name, shellWrapper])),
};
