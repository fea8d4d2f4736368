import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, type ShellParser } from 'happy-session/permissions';
import { bash, judge } from '../helpers.js';

/**
 * Issue 35, class 2, a red-team set: what a prefix grant covers at the edges of the command table
 * (docs/permissions-policy.md, "The command table").
 *
 * - An option a row does not know, whose value names a path outside the workspace, is not covered
 *   (`npm ls --logs-dir=/x` writes a log there, `wget --hsts-file=/x`, `curl --unix-socket`).
 * - An option whose value is computed when it runs (`--out=$HOME/.bashrc`, `-o$HOME/x`,
 *   `--out $HOME/x`) may name any path: not covered, for a command of the table or not.
 * - `man -C FILE` reads a configuration whose DEFINE lines name the programs man runs: code.
 * - tar's archive `host:file` runs a remote shell however the option is spelled (`--file h:x`).
 * - `date -s` sets the clock: configuration.
 *
 * Real bash shows what each does; the grant does not cover it, and the plain forms beside it are
 * allowed and run (positive controls).
 */

let shell: ShellParser;
let root: string;
let outside: string;
beforeAll(async () => {
  shell = await loadShellParser();
  const base = mkdtempSync(join(tmpdir(), 'grant-edges-'));
  root = join(base, 'workspace');
  outside = join(base, 'home');
  mkdirSync(root);
  mkdirSync(outside);
  // A workspace script that writes where its --out option says.
  writeFileSync(
    join(root, 'tool.sh'),
    '#!/bin/sh\nfor a; do case "$a" in --out=*) echo x > "${a#--out=}";; esac; done\n',
  );
  chmodSync(join(root, 'tool.sh'), 0o755);
  // A workspace script that reads its options with getopts: -v, and -o FILE (clustered: -vo/x).
  writeFileSync(
    join(root, 'opts.sh'),
    '#!/bin/bash\nwhile getopts "vo:" o; do [ "$o" = o ] && echo x > "$OPTARG"; done\n',
  );
  chmodSync(join(root, 'opts.sh'), 0o755);
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'w', version: '1.0.0' }));
  writeFileSync(join(root, 'man.conf'), `DEFINE tbl touch ${join(root, 'MAN_RAN')}\n`);
  // A page of the workspace, formatted with the programs the configuration names.
  copyFileSync('/usr/share/man/man1/ls.1.gz', join(root, 'page.1.gz'));
  writeFileSync(join(root, 'a.txt'), 'b\na\n');
  spawnSync('tar', ['-cf', 'a.tar', 'a.txt'], { cwd: root });
});
afterAll(() => rmSync(join(root, '..'), { recursive: true, force: true }));

function run(line: string): { stderr: string } {
  const r = spawnSync('bash', ['-c', line], {
    cwd: root,
    env: { ...process.env, HOME: outside },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { stderr: r.stderr };
}

const allowed = (rule: string, line: string): string =>
  judge(shell, { allow: [rule], workspaceRoot: root }, bash(line)).verdict;

describe('real bash: each does what the case says', () => {
  it('./tool.sh --out=$HOME/x writes outside the workspace (and --out $HOME/x is the same value)', () => {
    run('./tool.sh --out=$HOME/written');
    expect(existsSync(join(outside, 'written'))).toBe(true);
  });
  it('./opts.sh -vo<outside> writes outside the workspace: a value attached after a cluster', () => {
    run(`./opts.sh -vo${join(outside, 'clustered')}`);
    expect(existsSync(join(outside, 'clustered'))).toBe(true);
    run(`./opts.sh -vo../home/dotted`);
    expect(existsSync(join(outside, 'dotted'))).toBe(true);
  });
  it('npm ls --logs-dir=OUTSIDE writes a log outside the workspace', () => {
    run(`npm ls --logs-dir=${join(outside, 'logs')}`);
    expect(readdirSync(join(outside, 'logs')).length).toBeGreaterThan(0);
  });
  it('man -C man.conf -l page.1.gz runs the program its DEFINE names; man -l alone does not', () => {
    run('man -l page.1.gz');
    expect(existsSync(join(root, 'MAN_RAN'))).toBe(false);
    run('man -C man.conf -l page.1.gz');
    expect(existsSync(join(root, 'MAN_RAN'))).toBe(true);
  });
  it('tar -t --file localhost:x runs a remote shell', () => {
    expect(run('tar -t --file localhost:x').stderr).toContain('remote shell');
    expect(run('tar -tf localhost:x').stderr).toContain('remote shell');
  });
  it('FILE:///etc/hostname is a file: URL to a tool that reads URLs (curl prints the file)', () => {
    const printed = spawnSync('curl', ['-s', 'FILE:///etc/hostname'], { encoding: 'utf8' }).stdout;
    expect(printed).toBe(spawnSync('cat', ['/etc/hostname'], { encoding: 'utf8' }).stdout);
  });
  it('positive controls: the plain forms run and stay inside', () => {
    run('./tool.sh --out=inside.txt');
    expect(existsSync(join(root, 'inside.txt'))).toBe(true);
    expect(run('tar -t --force-local --file localhost:x').stderr).not.toContain('remote shell');
    expect(run('tar -tf a.tar').stderr).toBe('');
  });
});

describe('the grant does not cover them', () => {
  it.each([
    ['Bash(./tool.sh:*)', './tool.sh --out=$HOME/.bashrc'],
    ['Bash(./tool.sh:*)', './tool.sh --out $HOME/.bashrc'],
    ['Bash(./tool.sh:*)', './tool.sh -o$HOME/.bashrc'],
    ['Bash(./tool.sh:*)', './tool.sh --out="${HOME}/x"'],
    ['Bash(npm test:*)', 'npm test -- --out $HOME/x'],
    ['Bash(./opts.sh:*)', './opts.sh -vo/etc/x'],
    ['Bash(./tool.sh:*)', './tool.sh --in=FILE:///etc/x'],
    ['Bash(./tool.sh:*)', './tool.sh --in=file:%2Fetc%2Fx'],
    ['Bash(./tool.sh:*)', './tool.sh --in File:/etc/x'],
    ['Bash(./opts.sh:*)', './opts.sh -vo../home/x'],
    ['Bash(./opts.sh:*)', './opts.sh -vob/../../x'],
    ['Bash(sort:*)', 'sort -nu/tmp/x a.txt'],
    ['Bash(wget:*)', 'wget -qx../y http://example.invalid/'],
    ['Bash(npm ls:*)', 'npm ls --logs-dir=/tmp/x'],
    ['Bash(npm ls:*)', 'npm ls --cache /tmp/x'],
    ['Bash(npm:*)', 'npm --logs-dir=/tmp/x ls'],
    ['Bash(wget:*)', 'wget --hsts-file=/tmp/hsts https://example.invalid/'],
    ['Bash(curl:*)', 'curl --unix-socket /var/run/docker.sock http://x/containers/json'],
    ['Bash(curl:*)', 'curl --abstract-unix-socket x http://x/'],
    ['Bash(curl:*)', 'curl -o$HOME/x https://example.invalid/'],
    ['Bash(git log:*)', 'git log --output=$HOME/x'],
    ['Bash(git log:*)', 'git log -O/etc/x'],
    ['Bash(sort:*)', 'sort --random-source=$HOME/x a.txt'],
    ['Bash(man:*)', 'man -C man.conf -l page.1.gz'],
    ['Bash(man:*)', 'man --config-file=man.conf ls'],
    ['Bash(man:*)', 'man --config-f man.conf ls'],
    ['Bash(tar:*)', 'tar -t --file localhost:x'],
    ['Bash(tar:*)', 'tar -tflocalhost:x'],
    ['Bash(tar:*)', 'tar -t --file=localhost:x'],
    ['Bash(tar -t:*)', 'tar -t -f localhost:x'],
    ['Bash(date:*)', 'date -s 2020-01-01'],
    ['Bash(date:*)', 'date --set=2020-01-01'],
    ['Bash(date:*)', 'date --se 2020-01-01'],
  ])('%s does not cover %j', (rule, line) => {
    expect(allowed(rule, line)).toBe('ask');
  });
  it.each([
    ['Bash(./tool.sh:*)', './tool.sh --out=inside.txt'],
    ['Bash(./tool.sh:*)', './tool.sh --verbose'],
    ['Bash(./opts.sh:*)', './opts.sh -vo out.txt'],
    ['Bash(./tool.sh:*)', './tool.sh --in=a.txt'],
    ['Bash(./opts.sh:*)', './opts.sh -voout.txt'],
    ['Bash(sort:*)', 'sort -nr a.txt'],
    ['Bash(npm ls:*)', 'npm ls --depth=0'],
    ['Bash(npm test:*)', 'npm test -- --coverage'],
    ['Bash(wget:*)', 'wget -q https://example.invalid/'],
    ['Bash(curl:*)', 'curl -sS --compressed https://example.invalid/'],
    ['Bash(git log:*)', 'git log --stat --output-indicator-new=+'],
    ['Bash(sort:*)', 'sort -n a.txt'],
    ['Bash(man:*)', 'man -w ls'],
    ['Bash(man:*)', 'man -l page.1.gz'],
    ['Bash(tar:*)', 'tar -tf a.tar'],
    ['Bash(tar:*)', 'tar -t --force-local --file localhost:x'],
    ['Bash(date:*)', 'date +%s'],
    ['Bash(date:*)', 'date -d @0'],
  ])('%s still covers %j (positive control)', (rule, line) => {
    expect(allowed(rule, line)).toBe('allow');
  });
});

describe('man -C under a deny rule', () => {
  it('may run code: denied in bypassPermissions beside Bash(rm:*); man -w ls still runs', () => {
    const deny = ['Bash(rm:*)'];
    expect(judge(shell, { deny, mode: 'bypassPermissions' }, bash('man -C man.conf ls')).verdict).toBe(
      'deny',
    );
    expect(judge(shell, { deny, mode: 'bypassPermissions' }, bash('man -w ls')).verdict).toBe('allow');
  });
});
