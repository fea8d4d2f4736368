import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, type PermissionMode, type ShellParser } from 'happy-session/permissions';
import { COMMAND_TABLE } from '../../../packages/sdk/src/policy/commandTable.js';
import { bash, judge } from '../helpers.js';

/**
 * Issue 35, class 1: deny and ask rules trust no list of what runs code (docs/permissions-policy.md,
 * "The command table"). A command is a leaf only when the command table says so; every other
 * command name may run code, so while a deny or ask rule is in force such a line asks, or is denied
 * where nobody would be asked (bypassPermissions, dontAsk, the sandbox). Real bash shows that each
 * runner really runs `rm`; leaves beside the same rules still run (positive controls).
 */

let shell: ShellParser;
let dir: string;
beforeAll(async () => {
  shell = await loadShellParser();
  dir = mkdtempSync(join(tmpdir(), 'may-run-code-'));
  writeFileSync(join(dir, 'remove.sh'), '#!/bin/sh\nrm -f "$@"\n');
  chmodSync(join(dir, 'remove.sh'), 0o755);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { test: 'rm -f precious' } }));
  writeFileSync(join(dir, 'gone.sh'), 'rm -f precious\n');
  writeFileSync(join(dir, 'Makefile'), 'all:\n\trm -f precious\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Lines that remove `precious` through a command no deny rule names. */
const RUNNERS = [
  'jobs -x rm -f precious',
  'setsid -w rm -f precious',
  'stdbuf -o0 rm -f precious',
  'stdbuf --output=L rm -f precious',
  'flock precious.lock rm -f precious',
  'script -qc "rm -f precious" /dev/null',
  'watch -n1 -e -g rm -f precious',
  'unbuffer rm -f precious',
  'chrt 0 rm -f precious',
  'ionice -c3 rm -f precious',
  'taskset 1 rm -f precious',
  'prlimit --nofile=64 rm -f precious',
  'runuser -u root -- rm -f precious',
  'su -c "rm -f precious"',
  'awk \'BEGIN{system("rm -f precious")}\'',
  'perl -e \'unlink "precious"\'',
  'python3 -c \'import os; os.remove("precious")\'',
  'node -e \'require("fs").rmSync("precious")\'',
  './remove.sh precious',
  'bash remove.sh precious',
  'sh < gone.sh',
  'source remove.sh precious',
  '. ./remove.sh precious',
  'npm test',
  'npm run test',
  'make',
  "git -c alias.x='!rm -f precious' x",
  "sed -n '1e rm -f precious' package.json",
];

/** The same lines must not just "not match": bash really runs rm through each of these. */
const BASH_CHECKED = [
  'jobs -x rm -f precious',
  'setsid -w rm -f precious',
  'stdbuf -o0 rm -f precious',
  'stdbuf --output=L rm -f precious',
  'flock precious.lock rm -f precious',
  'awk \'BEGIN{system("rm -f precious")}\'',
  './remove.sh precious',
  'bash remove.sh precious',
  'sh < gone.sh',
  '. ./remove.sh precious',
  'npm test',
  'make',
  "git -c alias.x='!rm -f precious' x",
  "sed -n '1e rm -f precious' package.json",
];

function removesWithBash(line: string): boolean {
  writeFileSync(join(dir, 'precious'), 'keep');
  spawnSync('bash', ['-c', line], {
    cwd: dir,
    stdio: 'ignore',
    timeout: 20_000,
    env: { ...process.env, GIT_DIR: '/nonexistent' },
  });
  return !existsSync(join(dir, 'precious'));
}

/** Leaves: the table lists them with no word marked as running code. */
const LEAVES = [
  'ls -la',
  'git status',
  'git log --oneline -5',
  'cat package.json',
  'grep -r rm .',
  'head -5 package.json | tail -2',
  'rg -n rm .',
  'sed -n 1p package.json',
  'find . -name x',
  'tar -tf x.tar',
  'echo done',
  'npm ls',
  // env with a variable known to change no program (issue 35: env PATH=. cat runs ./cat).
  'env LANG=C ls',
  'timeout 5 git status',
];

describe('real bash: each runner removes the file', () => {
  it.each(BASH_CHECKED)('%j removes precious', (line) => {
    expect(removesWithBash(line)).toBe(true);
  });
  it('a leaf does not (positive control)', () => {
    expect(removesWithBash('ls -la && git status 2>/dev/null; cat package.json')).toBe(false);
  });
});

const NOBODY_ASKED: readonly PermissionMode[] = ['bypassPermissions', 'dontAsk'];
const ASKING: readonly PermissionMode[] = ['default', 'acceptEdits', 'safe-yolo', 'read-only'];

describe('under a deny rule, a runner cannot be checked', () => {
  const deny = ['Bash(rm:*)'];
  it.each(RUNNERS)('%j is denied where nobody would be asked', (line) => {
    for (const mode of NOBODY_ASKED)
      expect(judge(shell, { deny, mode, allow: ['Bash'] }, bash(line)).verdict, mode).toBe('deny');
    expect(
      judge(shell, { deny, mode: 'default', modeTable: { default: { execute: 'allow' } } }, bash(line))
        .verdict,
    ).toBe('deny');
  });
  it.each(RUNNERS)('%j asks where someone would be asked, whatever the allow rules', (line) => {
    for (const mode of ASKING)
      expect(['ask', 'deny'], mode).toContain(
        judge(shell, { deny, mode, allow: ['Bash'] }, bash(line)).verdict,
      );
    expect(judge(shell, { deny, allow: ['Bash'] }, bash(line)).verdict).toBe('ask');
  });
  it('plan denies them by its cell', () => {
    expect(judge(shell, { deny, mode: 'plan' }, bash('jobs -x rm -f precious')).verdict).toBe('deny');
  });
  it.each(LEAVES)('%j still runs in bypassPermissions beside the deny rule (positive control)', (line) => {
    expect(judge(shell, { deny, mode: 'bypassPermissions' }, bash(line)).verdict).toBe('allow');
    expect(judge(shell, { deny, allow: ['Bash'], mode: 'dontAsk' }, bash(line)).verdict).toBe('allow');
  });
});

describe('an ask rule fires on a runner too', () => {
  const ask = ['Bash(git push:*)'];
  it.each(['jobs -x git push origin main', 'setsid git push', 'stdbuf -o0 git push', 'flock l git push'])(
    '%j asks even in bypassPermissions, and is denied in dontAsk',
    (line) => {
      expect(judge(shell, { ask, mode: 'bypassPermissions' }, bash(line)).verdict).toBe('ask');
      expect(judge(shell, { ask, allow: ['Bash'], mode: 'dontAsk' }, bash(line)).verdict).toBe('deny');
    },
  );
  it('git pull still runs in bypassPermissions (positive control)', () => {
    expect(judge(shell, { ask, mode: 'bypassPermissions' }, bash('git pull')).verdict).toBe('allow');
  });
});

describe('without deny or ask rules, nothing changes', () => {
  it.each(['jobs -x ls', 'npm test', './remove.sh x'])(
    '%j runs in bypassPermissions, is allowed by its rule',
    (line) => {
      expect(judge(shell, { mode: 'bypassPermissions' }, bash(line)).verdict).toBe('allow');
      expect(judge(shell, { allow: [`Bash(${line})`] }, bash(line)).verdict).toBe('allow');
    },
  );
});

it('the table is exported for hosts and documentation, and names what each row decides', () => {
  for (const name of [
    'git',
    'find',
    'sed',
    'tar',
    'rg',
    'grep',
    'npm',
    'pnpm',
    'yarn',
    'make',
    'curl',
    'wget',
    'ls',
    'cat',
    'head',
    'tail',
    'sort',
  ])
    expect(COMMAND_TABLE.get(name), name).toBeTypeOf('string');
  for (const name of ['jobs', 'setsid', 'stdbuf', 'xargs', 'env', 'bash', 'awk'])
    expect(COMMAND_TABLE.has(name), name).toBe(false);
});

it('docs/permissions-policy.md names every row of the command table, and no command the code lacks', () => {
  const doc = readFileSync(
    fileURLToPath(new URL('../../../docs/permissions-policy.md', import.meta.url)),
    'utf8',
  );
  const section = doc.slice(
    doc.indexOf('## The command table'),
    doc.indexOf('## Edited arguments are judged'),
  );
  const rows = section
    .split('\n')
    .filter((l) => l.startsWith('| ') && !l.startsWith('| command') && !l.startsWith('| --'));
  const named = new Set<string>();
  for (const row of rows) {
    const [first, marks] = row.slice(2).split('|');
    const names =
      first!.trim() === 'leaves with no marked word'
        ? [...marks!.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)
        : first!.split(',').map((n) => n.trim());
    for (const n of names) named.add(n);
  }
  expect([...COMMAND_TABLE.keys()].filter((n) => !named.has(n))).toEqual([]);
  expect([...named].filter((n) => !COMMAND_TABLE.has(n))).toEqual([]);
});
