import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, type PermissionMode, type ShellParser } from 'happy-session/permissions';
import { bash, judge } from '../helpers.js';

/**
 * Issue 35, class 1, a red-team set: deny and ask rules that name options
 * (docs/permissions-policy.md, "Bash's own words"). `Bash(git push --force:*)` used to match only
 * when `--force` came right after `push`, and `Bash(rm -rf:*)` only `-rf` spelled so: `git push
 * origin main --force`, `rm -r -f`, `rm -fr`, `rm build -rf`, `rm --recur --forc` and `--output x`
 * for `--output=x` went through in bypassPermissions. The options of such a rule are now looked for
 * anywhere after the words before them, as the tools read them. Real bash (and git) shows each
 * does what the rule names; other options and arguments still run (positive controls).
 */

let shell: ShellParser;
let dir: string;
beforeAll(async () => {
  shell = await loadShellParser();
  dir = mkdtempSync(join(tmpdir(), 'option-rules-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const git = (cwd: string, ...args: string[]): number | null =>
  spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@x', ...args], { cwd, stdio: 'ignore' }).status;

/** A clone whose main has diverged from its remote's: only a forced push lands. */
function forcePushes(line: string): boolean {
  const work = mkdtempSync(join(dir, 'push-'));
  git(work, 'init', '-q', '--bare', '-b', 'main', 'remote.git');
  git(work, 'clone', '-q', 'remote.git', 'a');
  git(join(work, 'a'), 'commit', '-q', '--allow-empty', '-m', 'first');
  git(join(work, 'a'), 'push', '-q', 'origin', 'HEAD:main');
  git(work, 'clone', '-q', 'remote.git', 'b');
  git(join(work, 'b'), 'commit', '-q', '--amend', '--allow-empty', '-m', 'rewritten');
  const before = spawnSync('git', ['rev-parse', 'main'], {
    cwd: join(work, 'remote.git'),
    encoding: 'utf8',
  }).stdout;
  spawnSync('bash', ['-c', line], { cwd: join(work, 'b'), stdio: 'ignore', timeout: 20_000 });
  const after = spawnSync('git', ['rev-parse', 'main'], {
    cwd: join(work, 'remote.git'),
    encoding: 'utf8',
  }).stdout;
  return before !== after;
}

/** A directory `build` holding a file: true when bash removed it whole. */
function removesTree(line: string): boolean {
  const work = mkdtempSync(join(dir, 'rm-'));
  mkdirSync(join(work, 'build'));
  writeFileSync(join(work, 'build', 'x'), 'x');
  spawnSync('bash', ['-c', line], { cwd: work, stdio: 'ignore', timeout: 10_000 });
  return !existsSync(join(work, 'build'));
}

const FORCED = [
  'git push -q origin main --force',
  'git push -q origin --force main',
  'git push --quiet origin main --force',
  'git --no-pager push -q origin --force main',
];
const REMOVED = ['rm -r -f build', 'rm -fr build', 'rm build -rf', 'rm -v -rf build'];
/** GNU rm reads unique abbreviations of its long options. */
const REMOVED_LONG = [
  'rm --recur --forc build',
  'rm build --force --recursive',
  'rm -v --recursive -f --force build',
];
const NOBODY_ASKED: readonly PermissionMode[] = ['bypassPermissions', 'dontAsk'];

describe('real bash does what the rule names', () => {
  it.each(FORCED)('%j force-pushes', (line) => {
    expect(forcePushes(line)).toBe(true);
  });
  it('git push -q origin main does not (positive control)', () => {
    expect(forcePushes('git push -q origin main')).toBe(false);
  });
  it.each(REMOVED)('%j removes the tree', (line) => {
    expect(removesTree(line)).toBe(true);
  });
  it.each(REMOVED_LONG)('%j removes the tree', (line) => {
    expect(removesTree(line)).toBe(true);
  });
  it('rm -f build does not (positive control)', () => {
    expect(removesTree('rm -f build')).toBe(false);
  });
});

describe('a deny rule naming options sees them wherever they are', () => {
  it.each(FORCED)('%j is denied by Bash(git push --force:*) in every mode', (line) => {
    for (const mode of [...NOBODY_ASKED, 'default', 'acceptEdits'] as const)
      expect(judge(shell, { deny: ['Bash(git push --force:*)'], mode }, bash(line)).verdict, mode).toBe(
        'deny',
      );
  });
  it.each(REMOVED)('%j is denied by Bash(rm -rf:*) in every mode', (line) => {
    for (const mode of [...NOBODY_ASKED, 'default'] as const)
      expect(judge(shell, { deny: ['Bash(rm -rf:*)'], mode }, bash(line)).verdict, mode).toBe('deny');
  });
  it.each(REMOVED_LONG)('%j is denied by Bash(rm --recursive --force:*), abbreviated or not', (line) => {
    for (const mode of [...NOBODY_ASKED, 'default'] as const)
      expect(judge(shell, { deny: ['Bash(rm --recursive --force:*)'], mode }, bash(line)).verdict, mode).toBe(
        'deny',
      );
  });
  it('--output=x in a rule is --output x in the line', () => {
    expect(
      judge(
        shell,
        { deny: ['Bash(curl --output=out.txt:*)'], mode: 'bypassPermissions' },
        bash('curl https://example.invalid/ --output out.txt'),
      ).verdict,
    ).toBe('deny');
  });
  it.each(FORCED)('%j asks under an ask rule Bash(git push --force:*) even in bypassPermissions', (line) => {
    expect(
      judge(shell, { ask: ['Bash(git push --force:*)'], mode: 'bypassPermissions' }, bash(line)).verdict,
    ).toBe('ask');
  });
  it.each([
    ['Bash(git push --force:*)', 'git push -q origin main'],
    ['Bash(git push --force:*)', 'git push --force-with-lease origin main'],
    ['Bash(git push --force:*)', 'git status --porcelain'],
    ['Bash(rm -rf:*)', 'rm -f build'],
    ['Bash(rm -rf:*)', 'rm -r build'],
    ['Bash(rm --recursive --force:*)', 'rm --recursive build'],
    ['Bash(curl --output=out.txt:*)', 'curl https://example.invalid/ --output other.txt'],
  ])('under %s, %j still runs in bypassPermissions (positive control)', (rule, line) => {
    expect(judge(shell, { deny: [rule], mode: 'bypassPermissions' }, bash(line)).verdict).toBe('allow');
  });
});
