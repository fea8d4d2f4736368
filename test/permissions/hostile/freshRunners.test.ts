import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, type PermissionMode, type ShellParser } from 'happy-session/permissions';
import { bash, judge } from '../helpers.js';

/**
 * Issue 35, class 1, a second set written apart from mayRunCode.test.ts (docs/permissions-policy.md,
 * "The command table"): more ways for bash to run `rm` without `rm` being the command a deny rule
 * sees — builtins that evaluate a string (trap, mapfile/readarray callbacks, compgen -C), array
 * subscripts that bash evaluates as arithmetic inside `test -v`, `printf -v`, `read`, `declare`,
 * `let` and `[[ ]]`, aliases, `hash -p`, sourcing from standard input, and wrappers of util-linux
 * and coreutils. Real bash shows each removes the file; under a deny rule each is denied where
 * nobody would be asked and asks elsewhere. Leaves beside the same rule still run.
 */

let shell: ShellParser;
let dir: string;
beforeAll(async () => {
  shell = await loadShellParser();
  dir = mkdtempSync(join(tmpdir(), 'fresh-runners-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RUNNERS = [
  "test -v 'a[$(rm -f precious)]'",
  "[ -v 'a[$(rm -f precious)]' ]",
  "[[ -v 'a[$(rm -f precious)]' ]]",
  "[[ 'a[$(rm -f precious)]' -eq 0 ]]",
  "printf -v 'a[$(rm -f precious)]' x",
  "read 'a[$(rm -f precious)]' <<< x",
  "declare 'a[$(rm -f precious)]=1'",
  "declare -i n='a[$(rm -f precious)]'",
  "let 'a[$(rm -f precious)]=1'",
  "x='a[$(rm -f precious)]'; echo $(( x ))",
  "mapfile -C 'rm -f precious #' -c 1 <<< $'a\\nb'",
  "readarray -C 'rm -f precious #' -c 1 <<< $'a\\nb'",
  "compgen -C 'rm -f precious' x",
  "trap 'rm -f precious' EXIT",
  "shopt -s expand_aliases\nalias tidy='rm -f precious'\ntidy",
  'hash -p /bin/rm ls; ls -f precious',
  "echo 'rm -f precious' | . /dev/stdin",
  "source /dev/stdin <<< 'rm -f precious'",
  'command -p rm -f precious',
  'builtin command rm -f precious',
  'timeout 5 rm -f precious',
  'nohup rm -f precious',
  'chrt -o 0 rm -f precious',
  'ionice -c3 rm -f precious',
  'taskset -c 0 rm -f precious',
  'env -S "rm -f precious"',
  'select x in a; do rm -f precious; break; done <<< 1',
  'getopts a b $(rm -f precious)',
  'coproc rm -f precious',
];

function removesWithBash(line: string): boolean {
  writeFileSync(join(dir, 'precious'), 'keep');
  spawnSync('bash', ['-c', line], { cwd: dir, stdio: 'ignore', timeout: 20_000 });
  // `coproc` and `nohup` may finish just after bash: wait for the file's fate, a bounded number of times.
  for (let i = 0; i < 50 && existsSync(join(dir, 'precious')); i++)
    spawnSync('sleep', ['0.02'], { stdio: 'ignore' });
  return !existsSync(join(dir, 'precious'));
}

const LEAVES = ['ls -la', 'cat a.txt', 'echo done', 'wc -l a.txt', 'test -f a.txt', 'grep -c a a.txt', 'pwd'];
const NOBODY_ASKED: readonly PermissionMode[] = ['bypassPermissions', 'dontAsk'];

describe('real bash: each line removes the file', () => {
  it.each(RUNNERS)('%j removes precious', (line) => {
    expect(removesWithBash(line)).toBe(true);
  });
  it.each(LEAVES)('%j does not (positive control)', (line) => {
    expect(removesWithBash(line)).toBe(false);
  });
});

describe('under a deny rule Bash(rm:*)', () => {
  const deny = ['Bash(rm:*)'];
  it.each(RUNNERS)('%j is denied where nobody would be asked, and asks in default', (line) => {
    for (const mode of NOBODY_ASKED)
      expect(judge(shell, { deny, mode, allow: ['Bash'] }, bash(line)).verdict, mode).toBe('deny');
    expect(['ask', 'deny']).toContain(judge(shell, { deny, allow: ['Bash'] }, bash(line)).verdict);
  });
  it.each(LEAVES)('%j still runs in bypassPermissions (positive control)', (line) => {
    expect(judge(shell, { deny, mode: 'bypassPermissions' }, bash(line)).verdict).toBe('allow');
  });
});

describe('under an ask rule Bash(git push:*)', () => {
  const ask = ['Bash(git push:*)'];
  it.each([
    "trap 'git push origin main' EXIT",
    "compgen -C 'git push' x",
    "test -v 'a[$(git push)]'",
    'timeout 9 git push',
    'nohup git push',
    'command -p git push',
  ])('%j asks even in bypassPermissions', (line) => {
    expect(judge(shell, { ask, mode: 'bypassPermissions' }, bash(line)).verdict).toBe('ask');
  });
  it('git status still runs in bypassPermissions (positive control)', () => {
    expect(judge(shell, { ask, mode: 'bypassPermissions' }, bash('git status')).verdict).toBe('allow');
  });
});
