import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, type ShellParser } from '../../../packages/sdk/src/permissions/index.js';
import { bash, judge } from '../helpers.js';

/**
 * The policy's idea of a command line's words, compared with bash's own (docs/permissions-policy.md,
 * "Bash's own words").
 *
 * How nothing in a tested line can run: bash is given the fixed script
 * `set -- <line>` and, on the next line, `printf '%s\0' "$#" "$@"`, so the line only ever stands where the `set` builtin
 * takes its arguments, and is parsed by bash but never in command position. Before bash sees it, the line is checked (by the regular expression
 * `CANNOT_RUN`, not by the code under test) to hold none of the characters that could start
 * another command or any expansion: `; & | < > ( ) $` backquote, newline, NUL, and the glob,
 * brace and tilde characters `* ? [ ] { } ~`, nor end in an unescaped backslash (which would
 * join the next line to it). What is left is words, quotes, backslashes and
 * comments; `set --` only stores them, and `printf` with a fixed format prints them. bash also runs with `--norc
 * --noprofile -r` (restricted), an empty environment and `PATH`, in an empty directory.
 */

const BASH = '/usr/bin/bash';
/** An odd number of backslashes at the end: the last one would escape the newline after the line. */
const ENDS_IN_ESCAPE = /(^|[^\\])(\\\\)*\\$/;
const CANNOT_RUN = /^[^;&|<>()$`\n\0*?[\]{}~]*$/;

let shell: ShellParser;
let emptyDir: string;
beforeAll(async () => {
  shell = await loadShellParser();
  emptyDir = mkdtempSync(join(tmpdir(), 'happy-bash-words-'));
});
afterAll(() => {
  rmSync(emptyDir, { recursive: true, force: true });
});

/** The arguments bash passes for `line`, read back from `printf '%s\0'`. */
function bashWords(line: string): string[] {
  if (!CANNOT_RUN.test(line) || ENDS_IN_ESCAPE.test(line))
    throw new Error(`refusing to give bash ${JSON.stringify(line)}`);
  const script = `set -- ${line}\nprintf '%s\\0' "$#" "$@"`;
  const run = spawnSync(BASH, ['--norc', '--noprofile', '-r', '-c', script], {
    cwd: emptyDir,
    env: { PATH: '' },
    encoding: 'utf8',
    timeout: 5_000,
  });
  if (run.status !== 0) throw new Error(`bash failed on ${JSON.stringify(line)}: ${run.stderr}`);
  const [count, ...words] = run.stdout.slice(0, -1).split('\0');
  expect(words).toHaveLength(Number(count));
  return words;
}

/**
 * How the policy reads `line`: its words, or why it does not trust them (`differs`): tree-sitter
 * could not parse it, or it may read it differently from bash (control characters, Unicode
 * spaces outside quotes), or the line is assignments only (`a=1` runs no command at the start of
 * a line, and is words in argument position).
 */
function policyWords(line: string): {
  words: Array<string | undefined>;
  differs: 'unparsable' | 'unsafe_characters' | 'assignment' | undefined;
} {
  const split = shell.split(line);
  if (!split.ok) return { words: [], differs: 'unparsable' };
  // Assignments are only counted: the policy never matches their text, it refuses or skips them.
  const words = split.commands.flatMap((c) => [
    ...c.assignments.map(() => undefined),
    ...c.words.map((w) => w.value),
  ]);
  const kinds = split.hazards.map((h) => h.kind);
  const differs = kinds.includes('unsafe_characters')
    ? 'unsafe_characters'
    : kinds.includes('assignment')
      ? 'assignment'
      : undefined;
  return { words, differs };
}

/**
 * The words the policy reads for `line` are bash's words (a word it cannot read statically is
 * `undefined`, and matches no rule word). Where it does not trust its reading, the
 * line is never allowed by a rule written for what it looks like, nor by the bare `Bash` rule
 * (a line of assignments only is compared with nothing: it runs no command).
 */
function agreesWithBash(line: string): void {
  const fromBash = bashWords(line);
  const { words, differs } = policyWords(line);
  // Assignments only: no command to compare, and an exact rule for this very line may allow it.
  if (differs === 'assignment') return;
  if (differs) {
    const looksLike = line.replace(/[^\x20-\x7e]/g, ' ').trim();
    const allow = [
      'Bash',
      ...(looksLike && !looksLike.includes(')') ? [`Bash(${looksLike})`, `Bash(${looksLike}:*)`] : []),
    ];
    expect(judge(shell, { allow }, bash(line)).verdict, line).toBe('ask');
    return;
  }
  // A word the policy cannot read statically (`undefined`: bash computes it, or tree-sitter saw an
  // operator there) matches no rule word; every word it does read is bash's.
  expect(words.length, JSON.stringify(line)).toBe(fromBash.length);
  expect(
    words.map((w, i) => w ?? fromBash[i]),
    JSON.stringify(line),
  ).toEqual(fromBash);
}

describe("the policy's words are bash's words", () => {
  it.each([
    ['./scripts/test.sh'],
    ['./scripts/test.sh\r'],
    ['./scripts/test.sh\u00a0'],
    ['./scripts/test.sh\u3000x'],
    ['./deploy.sh --dry-run\u00a0'],
    ['"rm" -rf /'],
    ["'rm' -rf /"],
    ['\\rm -rf /'],
    ['x=1 rm -rf /'],
    ['r""m x'],
    ["r''m x"],
    ['a\\ b c'],
    ['"a\\"b" \'c\\d\''],
    ['"a\\\\b"'],
    ['git  status\t-s'],
    ['echo # a comment'],
    ['echo a#b'],
    ['git commit -m "a b" -- x'],
    ['a\\\tb'],
    ['"\u00a0"'],
    ["'\r'"],
  ])('%j', (line) => {
    agreesWithBash(line);
  });

  it('for generated lines of words, quotes, escapes and look-alike spaces', () => {
    const plain = fc.stringMatching(/^[a-zA-Z0-9_./:=,%+@^#-]{1,6}$/);
    const odd = fc.constantFrom('\r', '\v', '\f', '\u00a0', '\u3000', '\u2028', '\ufeff', '\u200b', '\x1b');
    const insideSingle = fc.stringMatching(/^[a-z \t"\\.-]{0,5}$/);
    const insideDouble = fc.oneof(
      fc.stringMatching(/^[a-z '.-]{0,5}$/),
      fc.constantFrom('\\"', '\\\\', '\\a'),
    );
    const token = fc.oneof(
      { weight: 4, arbitrary: plain },
      { weight: 2, arbitrary: insideSingle.map((s) => `'${s}'`) },
      { weight: 2, arbitrary: insideDouble.map((s) => `"${s}"`) },
      { weight: 1, arbitrary: fc.constantFrom('\\ ', '\\"', "\\'", '\\\\', '\\a', '\\\t') },
      { weight: 1, arbitrary: odd },
      { weight: 1, arbitrary: fc.tuple(odd, insideDouble).map(([o, s]) => `"${o}${s}"`) },
    );
    const word = fc.array(token, { minLength: 1, maxLength: 3 }).map((parts) => parts.join(''));
    const blank = fc.constantFrom(' ', '  ', '\t', ' \t ');
    const line = fc
      .tuple(word, fc.array(fc.tuple(blank, word), { maxLength: 4 }))
      .map(([first, rest]) => first + rest.map(([b, w]) => b + w).join(''))
      // A `#` that starts a word starts a comment for bash and for tree-sitter alike; a line that
      // is only a comment has no command to compare.
      .filter((l) => !l.trimStart().startsWith('#'));
    fc.assert(
      fc.property(line, (l) => {
        agreesWithBash(l);
      }),
      { numRuns: 200 },
    );
  });
});
