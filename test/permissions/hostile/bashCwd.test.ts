import { beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, type PolicyCall, type ShellParser } from 'happy-session/permissions';
import { judge } from '../helpers.js';

/**
 * Issue 23, class 6 (Bash part): `args.cwd` is part of what a Bash rule matches
 * (docs/permissions-policy.md, "Where a command runs"). A rule naming a relative path is written
 * for the workspace root: `Bash(./scripts/test.sh)` does not allow another directory's script, nor
 * the same words after a `cd`. A cwd outside the workspace root, one holding `..`, or one that is
 * not a string asks.
 */

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

const ROOT = '/work/project';
const RULES = {
  allow: [
    'Bash(./scripts/test.sh)',
    'Bash(./scripts/lint.sh:*)',
    'Bash(npm test)',
    'Bash(git status:*)',
    'Bash(cd:*)',
  ],
  workspaceRoot: ROOT,
};

function call(command: string, cwd?: unknown): PolicyCall {
  return { toolName: 'Bash', args: cwd === undefined ? { command } : { command, cwd } };
}

describe('args.cwd is part of what a Bash rule matches', () => {
  it.each([
    ['./scripts/test.sh', undefined],
    ['./scripts/test.sh', ROOT],
    ['./scripts/test.sh', `${ROOT}/`],
    ['./scripts/test.sh', '.'],
    ['./scripts/lint.sh --fix', ROOT],
    ['npm test', `${ROOT}/packages/sdk`],
    ['git status -s', `${ROOT}/src`],
    ['git status -s', 'src'],
    ['cd src && npm test', ROOT],
  ])('%j in %j is allowed (positive control)', (command, cwd) => {
    expect(judge(shell, RULES, call(command, cwd)).verdict).toBe('allow');
  });

  it.each([
    ['./scripts/test.sh', `${ROOT}/other`],
    ['./scripts/test.sh', 'other'],
    ['./scripts/lint.sh --fix', `${ROOT}/vendor/evil`],
    ['cd vendor/evil && ./scripts/test.sh', ROOT],
    ['cd /tmp; ./scripts/lint.sh', undefined],
    ['git status', '/tmp'],
    ['npm test', '/etc'],
    ['npm test', '/work/projectx'],
    ['npm test', `${ROOT}/../other`],
    ['npm test', `${ROOT}/src/../..`],
    ['npm test', 42],
    ['npm test', null],
    ['npm test', ['/work/project']],
    ['npm test', { path: ROOT }],
    ['npm test', ''],
    ['npm test', `${ROOT}\0/x`],
  ])('%j in %j asks', (command, cwd) => {
    expect(judge(shell, RULES, call(command, cwd)).verdict).toBe('ask');
  });

  it('a cwd outside the workspace asks even under the bare Bash rule and an exact rule for the line', () => {
    const rules = { allow: ['Bash', 'Bash(ls -la > out.txt)'], workspaceRoot: ROOT };
    expect(judge(shell, rules, call('ls', '/tmp')).verdict).toBe('ask');
    expect(judge(shell, rules, call('ls -la > out.txt', '/tmp')).verdict).toBe('ask');
    expect(judge(shell, rules, call('ls', ROOT)).verdict).toBe('allow');
    expect(judge(shell, rules, call('ls -la > out.txt', ROOT)).verdict).toBe('allow');
  });

  it('with no workspace root, a rule naming a relative path covers only calls that name no cwd', () => {
    const rules = { allow: ['Bash(./scripts/test.sh)', 'Bash(npm test)'] };
    expect(judge(shell, rules, call('./scripts/test.sh')).verdict).toBe('allow');
    expect(judge(shell, rules, call('./scripts/test.sh', '/anywhere')).verdict).toBe('ask');
    expect(judge(shell, rules, call('npm test', '/anywhere')).verdict).toBe('allow');
  });

  it('bypassPermissions still runs everything, and deny rules still deny', () => {
    expect(judge(shell, { mode: 'bypassPermissions' }, call('ls', '/tmp')).verdict).toBe('allow');
    expect(
      judge(shell, { mode: 'bypassPermissions', deny: ['Bash(rm:*)'] }, call('./rm x', '/tmp')).verdict,
    ).toBe('deny');
  });
});
