import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compileRules,
  evaluatePolicy,
  loadShellParser,
  type PermissionMode,
  type ShellParser,
} from 'happy-session/permissions';
import { bash, judge } from '../helpers.js';

/**
 * Issue 35, class 1, a red-team set written after the fresh sets: what a command runs where the
 * line does not show it (docs/permissions-policy.md, "The command table").
 *
 * - Words `xargs` reads from its input are given to its command unseen: `xargs env`, `xargs nice`,
 *   `xargs find`, `xargs git`, `xargs sed` run whatever the input names, and `-I`/`-i`/`--replace`
 *   put the input inside a `sh -c` string.
 * - `env NAME=value` and `sudo NAME=value` set variables that change what a leaf runs: `PATH=.`
 *   runs a copy of rm named `cat`, `GIT_CONFIG_*` gives `git status` an fsmonitor command.
 * - A string run by `bash -c`, `sh -c` or `env -S` is code: read exactly only inside the grammar, as
 *   a line is (`test -v 'a[$(…)]'`, `${_@P}`, `[[ -v … ]]`, an assignment inside it).
 *
 * Real bash shows each removes the file; under a deny rule each is denied where nobody would be
 * asked (bypassPermissions, dontAsk, the sandbox, an edit) and asks elsewhere. The leaves beside
 * them still run (positive controls).
 */

let shell: ShellParser;
let dir: string;
beforeAll(async () => {
  shell = await loadShellParser();
  dir = mkdtempSync(join(tmpdir(), 'unseen-runners-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RUNNERS = [
  // xargs gives its command words the line does not show.
  'echo rm -f precious | xargs env',
  'echo rm -f precious | xargs nice',
  'echo rm -f precious | xargs nohup',
  'echo 5 rm -f precious | xargs timeout',
  "echo . -name precious -exec rm -f '{}' + | xargs find",
  "echo -c core.fsmonitor=\\'rm -f precious\\; false\\' status | xargs git",
  "printf '1e rm -f precious\\0precious' | xargs -0 sed -n -e",
  "echo 'x; rm -f precious' | xargs -i sh -c 'echo {}'",
  "echo 'x; rm -f precious' | xargs --replace=Q bash -c 'echo Q'",
  "echo 'x; rm -f precious' | xargs -I Q sh -c 'echo Q'",
  // env and sudo set variables that change what the command runs.
  'cp /bin/rm ./cat && env PATH=. cat -f precious',
  "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor 'GIT_CONFIG_VALUE_0=rm -f precious; false' git status",
  "env -i GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.fsmonitor 'GIT_CONFIG_VALUE_0=rm -f precious; false' PATH=/usr/bin:/bin git status",
  "env BASH_ENV=<(echo 'rm -f precious') bash -c true",
  // Strings run as code, outside the grammar.
  'bash -c ": \'\\$(rm -f precious)\'; echo \\${_@P}"',
  'bash -c "test -v \'a[\\$(rm -f precious)]\'"',
  'bash -c "[[ -v \'a[\\$(rm -f precious)]\' ]]"',
  'bash -c "printf -v \'a[\\$(rm -f precious)]\' x"',
  "cp /bin/rm ./cat && bash -c 'PATH=. cat -f precious'",
  "cp /bin/rm ./cat && env -S 'PATH=. cat -f precious'",
  'bash -c \'declare "a[\\$(rm -f precious)]=1"\'',
];

/** Lines that run git need a repository to run in. */
const GIT_REPO_NEEDED = (line: string): boolean => /\bgit\b/.test(line);

const LEAVES = [
  'echo a.txt | xargs cat',
  'echo a.txt | xargs -n1 wc -l',
  'echo a | xargs grep -l a',
  'echo a | xargs',
  'env LANG=C LC_ALL=C ls',
  'env -i ls',
  'env TZ=UTC date',
  "bash -c 'git status && ls'",
  "sh -c 'echo done'",
  'env -S "echo done"',
];

function removesWithBash(line: string): boolean {
  const work = mkdtempSync(join(dir, 'run-'));
  if (GIT_REPO_NEEDED(line)) spawnSync('git', ['init', '-q'], { cwd: work });
  writeFileSync(join(work, 'precious'), 'keep');
  writeFileSync(join(work, 'a.txt'), 'a\n');
  spawnSync('bash', ['-c', line], { cwd: work, stdio: 'ignore', timeout: 20_000 });
  return !existsSync(join(work, 'precious'));
}

const NOBODY_ASKED: readonly PermissionMode[] = ['bypassPermissions', 'dontAsk'];
const ASKING: readonly PermissionMode[] = ['default', 'acceptEdits', 'safe-yolo'];

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
  it.each(RUNNERS)('%j is denied where nobody would be asked, and asks elsewhere', (line) => {
    for (const mode of NOBODY_ASKED)
      expect(judge(shell, { deny, mode, allow: ['Bash'] }, bash(line)).verdict, mode).toBe('deny');
    for (const mode of ASKING)
      expect(judge(shell, { deny, mode, allow: ['Bash'] }, bash(line)).verdict, mode).toBe('ask');
    // The sandbox would run it unasked, and so would a person's edit: denied.
    const rules = compileRules({ deny });
    if (!rules.ok) throw rules.error;
    const sandbox = { available: true };
    expect(evaluatePolicy({ mode: 'default', rules: rules.value, shell, sandbox }, bash(line)).verdict).toBe(
      'deny',
    );
    expect(judge(shell, { deny, mode: 'acceptEdits' }, { ...bash(line), edited: true }).verdict).toBe('deny');
  });
  it.each(LEAVES)('%j still runs beside the deny rule (positive control)', (line) => {
    expect(judge(shell, { deny, mode: 'bypassPermissions' }, bash(line)).verdict).toBe('allow');
    expect(judge(shell, { deny, allow: ['Bash'], mode: 'dontAsk' }, bash(line)).verdict).toBe('allow');
    const rules = compileRules({ deny });
    if (!rules.ok) throw rules.error;
    expect(
      evaluatePolicy({ mode: 'default', rules: rules.value, shell, sandbox: { available: true } }, bash(line))
        .verdict,
    ).toBe('allow');
  });
});

describe('a deny rule with more words than xargs shows', () => {
  const deny = ['Bash(rm -rf:*)'];
  it('xargs rm may be given -rf from its input: denied where nobody would be asked', () => {
    expect(judge(shell, { deny, mode: 'bypassPermissions' }, bash('echo -rf x | xargs rm')).verdict).toBe(
      'deny',
    );
    expect(judge(shell, { deny, mode: 'default' }, bash('echo -rf x | xargs rm')).verdict).toBe('ask');
  });
  it('xargs cat still runs: it takes no option the rule names (positive control)', () => {
    expect(judge(shell, { deny, mode: 'bypassPermissions' }, bash('echo a | xargs cat')).verdict).toBe(
      'allow',
    );
  });
});

describe('a prefix grant over xargs covers its input only for a command the table marks nothing of', () => {
  const allow = [
    'Bash(printf:*)',
    'Bash(echo:*)',
    'Bash(xargs sed -n:*)',
    'Bash(xargs git log:*)',
    'Bash(xargs cat:*)',
  ];
  it("real bash: printf '1e rm -f precious\\0a.txt' | xargs -0 sed -n removes the file", () => {
    expect(removesWithBash("printf '1e rm -f precious\\0a.txt' | xargs -0 sed -n")).toBe(true);
  });
  it.each(["printf '1e rm -f precious\\0a.txt' | xargs -0 sed -n", 'echo --output=/tmp/x | xargs git log'])(
    '%j is not covered by the grant of xargs and the command',
    (line) => {
      expect(judge(shell, { allow }, bash(line)).verdict).toBe('ask');
    },
  );
  it('echo a.txt | xargs cat is covered (positive control)', () => {
    expect(judge(shell, { allow }, bash('echo a.txt | xargs cat')).verdict).toBe('allow');
    expect(removesWithBash('echo a.txt | xargs cat')).toBe(false);
  });
});

describe('an ask rule Bash(git push:*) fires through them', () => {
  const ask = ['Bash(git push:*)'];
  it.each([
    'echo push origin main | xargs git',
    "echo 'push origin' | xargs -I Q sh -c 'git Q'",
    'env GIT_DIR=.git git push',
    'bash -c \'git push origin "$(git branch --show-current)"\'',
  ])('%j asks even in bypassPermissions, and is denied in dontAsk', (line) => {
    expect(judge(shell, { ask, mode: 'bypassPermissions' }, bash(line)).verdict).toBe('ask');
    expect(judge(shell, { ask, allow: ['Bash'], mode: 'dontAsk' }, bash(line)).verdict).toBe('deny');
  });
  it.each(['echo a.txt | xargs cat', 'env LANG=C git status'])(
    '%j still runs in bypassPermissions (positive control)',
    (line) => {
      expect(judge(shell, { ask, mode: 'bypassPermissions' }, bash(line)).verdict).toBe('allow');
    },
  );
});
