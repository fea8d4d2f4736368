import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileRules, evaluatePolicy, loadShellParser, type ShellParser } from 'happy-session/permissions';
import { bash, judge } from '../helpers.js';

/**
 * Issue 35, class 1, a red-team set beside gitPlants.test.ts: leaves of the command table read a
 * configuration file from the home that names programs they run. Writing one plants code for the
 * next run of the leaf (docs/permissions-policy.md, "The command table"):
 *
 * - `~/.manpath`: its `DEFINE tbl …` line is run by `man -l page`;
 * - `~/.wgetrc`: its `use_askpass` program is run by `wget --user=u URL`;
 * - `~/.ssh/config`: its `ProxyCommand` is run by git's ssh transport (ssh reads the home of the
 *   password database, not `$HOME`, so this one is checked against the gate only);
 * - `~/.curlrc`: curl obeys its `output` on every run.
 *
 * Real bash, with a home of its own, shows the first two run the program; under a deny rule each
 * write is denied where nobody would be asked. Reading those files, and the leaves, still run.
 */

let shell: ShellParser;
let dir: string;
beforeAll(async () => {
  shell = await loadShellParser();
  dir = mkdtempSync(join(tmpdir(), 'config-plants-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PLANTS = [
  "printf 'DEFINE tbl rm -f precious\\n' | tee $HOME/.manpath && man -l page.1.gz",
  "printf '#!/bin/sh\\nrm -f precious\\necho x\\n' | tee ask.sh && chmod +x ask.sh && printf 'use_askpass = ./ask.sh\\n' | tee $HOME/.wgetrc && wget -q --user=u http://127.0.0.1:9/",
];

const GATE_ONLY = [
  "printf 'Host x\\n  ProxyCommand rm -f precious\\n' | tee -a /root/.ssh/config && git ls-remote ssh://x/y",
  'mkdir -p $HOME/.ssh && cp proxy.conf $HOME/.ssh/config',
  "printf 'output = /tmp/x\\n' | tee $HOME/.curlrc",
  'cp evil.conf /etc/wgetrc',
];

const LEAVES = [
  'man -l page.1.gz',
  'cat $HOME/.wgetrc',
  'ls -la $HOME/.ssh',
  'grep -c Host $HOME/.ssh/config',
  'wget -q --user=u http://127.0.0.1:9/',
];

function removesWithBash(line: string): boolean {
  const work = mkdtempSync(join(dir, 'run-'));
  const home = mkdtempSync(join(dir, 'home-'));
  copyFileSync('/usr/share/man/man1/ls.1.gz', join(work, 'page.1.gz'));
  writeFileSync(join(work, 'precious'), 'keep');
  spawnSync('bash', ['-c', line], {
    cwd: work,
    stdio: 'ignore',
    timeout: 30_000,
    env: { ...process.env, HOME: home },
  });
  return !existsSync(join(work, 'precious'));
}

describe('real bash, with a home of its own: the leaf runs the program its configuration names', () => {
  it.each(PLANTS)('%j removes precious', (line) => {
    expect(removesWithBash(line)).toBe(true);
  });
  it.each(LEAVES)('%j does not (positive control)', (line) => {
    expect(removesWithBash(line)).toBe(false);
  });
});

describe('under a deny rule Bash(rm:*)', () => {
  const deny = ['Bash(rm:*)'];
  it.each([...PLANTS, ...GATE_ONLY])('%j is denied where nobody would be asked, asks elsewhere', (line) => {
    expect(judge(shell, { deny, mode: 'bypassPermissions' }, bash(line)).verdict).toBe('deny');
    expect(judge(shell, { deny, allow: ['Bash'], mode: 'dontAsk' }, bash(line)).verdict).toBe('deny');
    expect(judge(shell, { deny, allow: ['Bash'], mode: 'default' }, bash(line)).verdict).toBe('ask');
    expect(judge(shell, { deny, mode: 'default' }, { ...bash(line), edited: true }).verdict).toBe('deny');
  });
  it.each(LEAVES)('%j still runs in bypassPermissions (positive control)', (line) => {
    expect(judge(shell, { deny, mode: 'bypassPermissions' }, bash(line)).verdict).toBe('allow');
  });
  it('man -l page.1.gz still runs in the sandbox (positive control)', () => {
    const rules = compileRules({ deny });
    if (!rules.ok) throw rules.error;
    expect(
      evaluatePolicy(
        { mode: 'default', rules: rules.value, shell, sandbox: { available: true } },
        bash('man -l page.1.gz'),
      ).verdict,
    ).toBe('allow');
  });
});
