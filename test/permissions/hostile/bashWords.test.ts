import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readBashLine } from '../../../packages/sdk/src/policy/bashGrammar.js';
import { loadShellParser, type ShellParser } from 'happy-session/permissions';
import { bash, judge } from '../helpers.js';

/**
 * The words the policy reads for a command line, compared with bash's own (docs/permissions-policy.md,
 * "The grammar a line must be in to be allowed" and "Bash's own words"): the grammar's words
 * (the only reading that may let a line be allowed), and tree-sitter's (what deny rules see).
 *
 * How nothing in a tested line can run: bash is given the fixed script `: v`, then
 * `set -- <line>` and, on the next line, `printf '%s\0' "$#" "$@"`, so the line only ever stands
 * where the `set` builtin takes its arguments, and is parsed by bash but never in command
 * position. Before bash sees it, the line is checked (by {@link cannotRun}, not by the code under
 * test): the parameter forms the generator writes (`$V`, `${V}`, `${V@P}`, `${!V}`, `${V:N}`,
 * `${V:N:M}` over the names `V`, `W`, `PWD` and `_`) and `$'…'` strings are taken out, and what is
 * left must hold none of the characters that could start another command or any other expansion:
 * `; & | < > ( ) $` backquote, newline, NUL, and the glob, brace and tilde characters
 * `* ? [ ] { } ~`, nor end in an unescaped backslash (which would join the next line to it).
 * The variables those forms read hold plain letters (`V=v`, `W=w`, and `$_` is `v` after `: v`),
 * so prompt expansion (`@P`), indirection and arithmetic (`:_`) only ever read letters.
 * bash also runs with `--norc --noprofile -r` (restricted), that environment and an empty `PATH`,
 * in an empty directory.
 */

const BASH = '/usr/bin/bash';
/** An odd number of backslashes at the end: the last one would escape the newline after the line. */
const ENDS_IN_ESCAPE = /(^|[^\\])(\\\\)*\\$/;
const CANNOT_RUN = /^[^;&|<>()$`\n\0*?[\]{}~]*$/;
/** The parameter forms the generator writes, over names whose values are plain letters. */
const PARAMETER =
  /\$\{!?(?:V|W|PWD|_)(?:@P|:[0-9_]{1,2}(?::[0-9_]{1,2})?)?\}|\$(?:V|W|PWD|_)(?![A-Za-z0-9_])/g;
/** `$'…'` with escapes of single characters only (each a backslash and one of `0-7xuUc@A-Za-z'\\`). */
const ANSI_C = /\$'(?:[^'\\\n\0]|\\[0-7xuUcA-Za-z@'\\])*'/g;

/** True when `line` holds nothing that could run in argument position (see the file's comment). */
function cannotRun(line: string): boolean {
  const rest = line.replace(PARAMETER, 'p').replace(ANSI_C, 'a');
  return CANNOT_RUN.test(rest) && !ENDS_IN_ESCAPE.test(line);
}

let shell: ShellParser;
let emptyDir: string;
beforeAll(async () => {
  shell = await loadShellParser();
  emptyDir = mkdtempSync(join(tmpdir(), 'happy-bash-words-'));
});
afterAll(() => {
  rmSync(emptyDir, { recursive: true, force: true });
});

/** The arguments bash passes for `line`, read back from `printf '%s\0'`; `undefined` when bash refuses the line. */
function bashWords(line: string): string[] | undefined {
  if (!cannotRun(line)) throw new Error(`refusing to give bash ${JSON.stringify(line)}`);
  const script = `: v\nset -- ${line}\nprintf '%s\\0' "$#" "$@"`;
  const run = spawnSync(BASH, ['--norc', '--noprofile', '-r', '-c', script], {
    cwd: emptyDir,
    env: { PATH: '', V: 'v', W: 'w' },
    encoding: 'utf8',
    timeout: 5_000,
  });
  if (run.status !== 0) return undefined;
  const [count, ...words] = run.stdout.slice(0, -1).split('\0');
  expect(words).toHaveLength(Number(count));
  return words;
}

/** The grammar's words for `line` (`undefined` for a word holding a parameter reference), or `undefined` when it refuses the line. */
function grammarWords(line: string): Array<Array<string | undefined>> | undefined {
  const read = readBashLine(line);
  return read.ok ? read.commands.map((c) => c.words.map((w) => w.value)) : undefined;
}

/** Rules that would allow `line` if it were read as it looks: the bare rule and a prefix rule for its first word. */
function rulesFor(line: string): string[] {
  const first = line
    .trimStart()
    .split(/[ \t]/, 1)[0]!
    .replace(/[^A-Za-z0-9_./-]/g, '');
  return ['Bash', ...(first ? [`Bash(${first}:*)`] : [])];
}

/**
 * Commands that run a command or a file named by their arguments, by the last segment of their
 * path (docs/permissions-policy.md, "Deny rules see the real command"); `.` only without a slash,
 * since a path ending in `/.` is a directory, which nothing can run.
 */
const WRAPPERS = new Set(
  'command builtin exec env nice nohup time timeout sudo doas xargs find coproc eval source bash sh zsh dash ksh'.split(
    ' ',
  ),
);

/** True when `line`'s command is a wrapper and one of its arguments is computed when it runs. */
function runsWhatItComputes(line: string): boolean {
  const [name, ...args] = line.trim().split(/[ \t]+/);
  const last = name!.split('/').filter(Boolean).at(-1) ?? '';
  const wrapper = name === '.' || (WRAPPERS.has(last) && !/\/\.\.?$/.test(name!));
  return wrapper && args.some((a) => a.includes('$'));
}

/**
 * The grammar accepts `line` (one simple command) only when its words are bash's: same count,
 * the same value for every static word (a parameter reference is `undefined`, and matches no
 * rule word). A line where they differ, or that bash refuses, is never allowed by the bare
 * `Bash` rule or a prefix rule; one the grammar accepts is (positive control).
 */
function grammarAgreesWithBash(line: string): void {
  const fromBash = bashWords(line);
  const read = grammarWords(line);
  const agrees =
    read !== undefined &&
    fromBash !== undefined &&
    read.length === 1 &&
    read[0]!.length === fromBash.length &&
    read[0]!.every((w, i) => w === undefined || w === fromBash[i]);
  if (read !== undefined) {
    expect(fromBash, `bash refuses ${JSON.stringify(line)}, the grammar accepts it`).toBeDefined();
    expect(read, JSON.stringify(line)).toHaveLength(1);
    expect(
      read[0]!.map((w, i) => w ?? fromBash![i]),
      JSON.stringify(line),
    ).toEqual(fromBash);
    expect(agrees).toBe(true);
    const judged = judge(shell, { allow: ['Bash'] }, bash(line));
    if (runsWhatItComputes(line)) {
      expect(judged.verdict, JSON.stringify(line)).toBe('ask');
      expect(judged.reason, JSON.stringify(line)).toMatchObject({ shell: { kind: 'unchecked' } });
      return;
    }
    expect(judged.verdict, JSON.stringify(line)).toBe('allow');
    return;
  }
  expect(judge(shell, { allow: rulesFor(line) }, bash(line)).verdict, JSON.stringify(line)).toBe('ask');
}

/**
 * What tree-sitter reads (the words deny rules see on a line outside the grammar) is bash's words
 * wherever the policy trusts it. Where it is not (tree-sitter has known misreads, such as
 * `$'\\'\\ ` after a quoted word), the line must be one the grammar reads right (deny rules then
 * use the grammar's words), or a line outside the grammar, which is denied where a deny rule is in
 * force and nobody would be asked, and is never allowed by a prefix rule.
 */
function treeSitterAgreesWithBash(line: string): void {
  const fromBash = bashWords(line);
  const split = shell.split(line);
  if (!split.ok || fromBash === undefined) return;
  const kinds = split.hazards.map((h) => h.kind);
  if (kinds.includes('unsafe_characters') || kinds.includes('assignment')) return;
  const words = split.commands.flatMap((c) => [
    ...c.assignments.map(() => undefined),
    ...c.words.map((w) => w.value),
  ]);
  // A computed word may expand to no word at all (`${!V}`): deny rules never match it anyway.
  if (words.includes(undefined)) return;
  const agrees = words.length === fromBash.length && words.every((w, i) => w === fromBash[i]);
  if (agrees) return;
  if (readBashLine(line).ok) {
    grammarAgreesWithBash(line);
    return;
  }
  const bypass = { deny: ['Bash(zz:*)'], mode: 'bypassPermissions' as const };
  expect(judge(shell, bypass, bash(line)).verdict, JSON.stringify(line)).toBe('deny');
  expect(judge(shell, { allow: rulesFor(line) }, bash(line)).verdict, JSON.stringify(line)).toBe('ask');
}

const FIXED = [
  './scripts/test.sh',
  './scripts/test.sh\r',
  './scripts/test.sh\u00a0',
  './scripts/test.sh\u3000x',
  './deploy.sh --dry-run\u00a0',
  '"rm" -rf /',
  "'rm' -rf /",
  '\\rm -rf /',
  'r""m x',
  "r''m x",
  'a\\ b c',
  '"a\\"b" \'c\\d\'',
  '"a\\\\b"',
  'git  status\t-s',
  'echo # a comment',
  'echo a#b',
  'git commit -m "a b" -- x',
  'git commit -m "fix: x"',
  'a\\\tb',
  '"\u00a0"',
  "'\r'",
  'echo $V',
  'echo "$V" ${V} "${W}x"',
  'echo ${V}x "$V"_ $V.x',
  'git status -- ${_@P}',
  'echo ${!V}',
  'echo ${PWD:_}',
  'echo ${PWD:0:_}',
  'echo ${V@P}',
  "rm$'\\0x' -f F",
  "rm$'\\c@x' -f F",
  "rm$'\\u0000x' -f F",
  "rm$'\\x00x' -f F",
  "echo $'\\x41' $'\\u0042' $'\\101' $'\\cA'",
  "echo $'a\\tb' $'\\'' $'\\\\'",
  "'' $'\\\\'\\  '\\'",
  'echo $_',
  '/. "$V"',
  './. $V',
  'bin/.. ${V}',
  '.. "$V"',
  '/usr/bin/env "$V"',
  'x/nice $V',
];

describe("the grammar's words are bash's words", () => {
  it.each(FIXED.map((l) => [l]))('%j', (line) => {
    grammarAgreesWithBash(line);
  });

  it('for generated lines of words, quotes, escapes, parameters, operators and ANSI-C strings', () => {
    fc.assert(
      fc.property(generatedLine, (l) => {
        grammarAgreesWithBash(l);
      }),
      { numRuns: 300 },
    );
  });

  it('for generated lines of several commands joined by operators: the same commands, each with bash’s words', () => {
    const joiner = fc.constantFrom(' ; ', ' && ', ' || ', ' | ', '\n', ';', '&&');
    const commands = fc.array(generatedLine, { minLength: 2, maxLength: 3 });
    fc.assert(
      fc.property(commands, fc.array(joiner, { minLength: 2, maxLength: 2 }), (parts, joins) => {
        const line = parts.map((p, i) => (i === 0 ? p : joins[(i - 1) % joins.length]! + p)).join('');
        const each = parts.map(grammarWords);
        const whole = grammarWords(line);
        if (each.every((w) => w !== undefined)) {
          // A part that ends in a comment swallows what follows it on its line.
          if (parts.some((p) => p.includes('#'))) return;
          expect(whole, JSON.stringify(line)).toEqual(each.flat());
          for (const part of parts) grammarAgreesWithBash(part);
        } else if (whole !== undefined) {
          // The grammar may only accept the whole when a refused part was swallowed by a comment.
          expect(
            parts.some((p) => p.includes('#')),
            JSON.stringify(line),
          ).toBe(true);
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe("tree-sitter's words (what deny rules see) are bash's where the policy trusts them", () => {
  it.each(FIXED.map((l) => [l]))('%j', (line) => {
    treeSitterAgreesWithBash(line);
  });

  it('for generated lines, ANSI-C escapes with NUL, \\c, \\x, \\u and octal included', () => {
    fc.assert(
      fc.property(generatedLine, (l) => {
        treeSitterAgreesWithBash(l);
      }),
      { numRuns: 200 },
    );
  });
});

/** Words that bash reads as reserved in command position, and the prefixes that take a pipeline. */
const RESERVED_PREFIXES = [
  'time',
  'time -p',
  'coproc',
  'coproc X',
  '!',
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'do',
  'done',
  'while',
  'until',
  'for x in',
  'select x in',
  'case',
  'esac',
  'function',
  '{',
  '}',
  '[[',
  'in',
  '"time"',
  '\\if',
];

describe('reserved words and prefixes are never read as commands', () => {
  const body = fc.constantFrom('rm -f F', '{ rm -f F; }', 'git status', 'do rm -f F; done', 'then rm x');
  it('for generated lines that start with one, alone or after another command', () => {
    const before = fc.constantFrom('', 'git status; ', 'git status && ', 'git status | ', 'git status\n');
    fc.assert(
      fc.property(before, fc.constantFrom(...RESERVED_PREFIXES), body, (b, prefix, rest) => {
        const line = `${b}${prefix} ${rest}`;
        expect(readBashLine(line).ok, JSON.stringify(line)).toBe(false);
        expect(judge(shell, { allow: ['Bash', 'Bash(git status:*)'] }, bash(line)).verdict, line).toBe('ask');
        expect(
          judge(shell, { deny: ['Bash(rm:*)'], mode: 'bypassPermissions' }, bash(line)).verdict,
          line,
        ).toBe('deny');
      }),
      { numRuns: 150 },
    );
  });

  it('the same words as arguments are plain words (positive control)', () => {
    for (const word of ['time', 'do', 'done', 'then', 'in', 'fi', 'esac']) {
      expect(judge(shell, { allow: ['Bash(echo:*)'] }, bash(`echo ${word}`)).verdict, word).toBe('allow');
    }
  });
});

const plain = fc.stringMatching(/^[a-zA-Z0-9_./:=,%+@^#-]{1,6}$/);
const odd = fc.constantFrom(
  '\r',
  '\v',
  '\f',
  '\u00a0',
  '\u3000',
  '\u2028',
  '\ufeff',
  '\u200b',
  '\x1b',
  '\u202e',
);
const insideSingle = fc.stringMatching(/^[a-z \t"\\.$-]{0,5}$/);
const parameter = fc.constantFrom(
  '$V',
  '${V}',
  '$W',
  '${PWD}',
  '$PWD',
  '${V@P}',
  '${_@P}',
  '${!V}',
  '${PWD:_}',
  '${PWD:0:_}',
  '${V:1}',
  '${!_}',
);
const insideDouble = fc.oneof(
  fc.stringMatching(/^[a-z '.-]{0,5}$/),
  fc.constantFrom('\\"', '\\\\', '\\a', '\\$V', '\\`'),
  parameter,
);
const ansiEscape = fc.constantFrom(
  'a',
  '\\n',
  '\\t',
  "\\'",
  '\\\\',
  '\\0',
  '\\00',
  '\\101',
  '\\c@',
  '\\cA',
  '\\x41',
  '\\x0',
  '\\x00',
  '\\u0000',
  '\\u0042',
  '\\U00000043',
  '\\q',
);
const token = fc.oneof(
  { weight: 4, arbitrary: plain },
  { weight: 2, arbitrary: insideSingle.map((s) => `'${s}'`) },
  { weight: 2, arbitrary: fc.array(insideDouble, { maxLength: 3 }).map((s) => `"${s.join('')}"`) },
  { weight: 1, arbitrary: fc.constantFrom('\\ ', '\\"', "\\'", '\\\\', '\\a', '\\\t', '\\#') },
  { weight: 1, arbitrary: odd },
  { weight: 1, arbitrary: fc.tuple(odd, insideDouble).map(([o, s]) => `"${o}${s}"`) },
  { weight: 2, arbitrary: parameter },
  {
    weight: 2,
    arbitrary: fc.array(ansiEscape, { minLength: 1, maxLength: 3 }).map((e) => `$'${e.join('')}'`),
  },
);
const word = fc.array(token, { minLength: 1, maxLength: 3 }).map((parts) => parts.join(''));
const blank = fc.constantFrom(' ', '  ', '\t', ' \t ');
/** One simple command's words, as a line (never only a comment, which has no command to compare). */
const generatedLine = fc
  .tuple(word, fc.array(fc.tuple(blank, word), { maxLength: 4 }))
  .map(([first, rest]) => first + rest.map(([b, w]) => b + w).join(''))
  .filter((l) => !l.trimStart().startsWith('#') && cannotRun(l));
