import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PERMISSION_MODES,
  loadShellParser,
  type PermissionMode,
  type PolicyCall,
  type ShellParser,
} from 'happy-session/permissions';
import { editConcern } from '../../../packages/sdk/src/policy/editScope.js';
import { ruleForCall } from '../../../packages/sdk/src/policy/sessionRules.js';
import { judge } from '../helpers.js';

/**
 * Edits stay in the workspace (docs/permissions-policy.md, "Edits stay in the workspace"): whatever
 * would allow an edit without asking (acceptEdits, an edit rule, a session rule) allows it only
 * inside the workspace root, after `..`, `//`, `.` and symlinks are resolved, and never on a
 * protected path. A real directory with real symlinks stands for the workspace.
 */

let shell: ShellParser;
let root: string;
let outside: string;

beforeAll(async () => {
  shell = await loadShellParser();
  outside = realpathSync(mkdtempSync(join(tmpdir(), 'happy-edits-outside-')));
  root = realpathSync(mkdtempSync(join(tmpdir(), 'happy-edits-')));
  mkdirSync(join(root, 'src'));
  writeFileSync(join(root, 'src', 'a.ts'), 'export {};\n');
  mkdirSync(join(root, '.git', 'hooks'), { recursive: true });
  writeFileSync(join(root, '.git', 'config'), '[core]\n');
  symlinkSync(outside, join(root, 'src', 'elsewhere'));
  symlinkSync(join(root, '.git'), join(root, 'gitdir'));
  symlinkSync(join(outside, 'missing', 'file'), join(root, 'dangling'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

const INSIDE = () => [
  'src/a.ts',
  join(root, 'src', 'a.ts'),
  'src/new/dir/file.ts',
  './src/./a.ts',
  'src//a.ts',
  'README.md',
  `${root}/src/../docs/guide.md`,
];

const OUTSIDE = () => [
  '/etc/passwd',
  '../../.ssh/authorized_keys',
  '../outside.ts',
  'src/../../x.ts',
  'src/elsewhere/passwd',
  'dangling',
  '~/.bashrc',
  join(outside, 'x.ts'),
  root,
];

const PROTECTED = [
  '.git/config',
  '.git/hooks/pre-commit',
  'packages/lib/.git/config',
  '.GIT/config',
  'gitdir/config',
  '.happy/agent.key',
  '.ssh/id_rsa',
  '.bashrc',
  'sub/.zshrc',
  '.profile',
  '.env',
  '.env.local',
  '.envrc',
  '.Env',
];

/** Edit-kind calls of every file tool, naming `path` in the argument each tool uses. */
function edits(path: string): PolicyCall[] {
  return [
    { toolName: 'Edit', args: { file_path: path, old_string: 'a', new_string: 'b' } },
    { toolName: 'Write', args: { file_path: path, content: 'x' } },
    { toolName: 'MultiEdit', args: { file_path: path, edits: [] } },
    { toolName: 'NotebookEdit', args: { notebook_path: path, new_source: 'x' } },
  ];
}

/** What each mode does with an edit inside the workspace, outside it, and on a protected path. */
const EXPECTED: Record<PermissionMode, { inside: string; outside: string; protected: string }> = {
  default: { inside: 'ask', outside: 'ask', protected: 'ask' },
  acceptEdits: { inside: 'allow', outside: 'ask', protected: 'ask' },
  plan: { inside: 'deny', outside: 'deny', protected: 'deny' },
  'read-only': { inside: 'deny', outside: 'deny', protected: 'deny' },
  dontAsk: { inside: 'deny', outside: 'deny', protected: 'deny' },
  'safe-yolo': { inside: 'ask', outside: 'ask', protected: 'ask' },
  // Not confined: bypass runs any command anyway (docs/permissions-policy.md).
  bypassPermissions: { inside: 'allow', outside: 'allow', protected: 'allow' },
};

describe.each(PERMISSION_MODES.map((m) => [m]))('edits in mode %s', (mode) => {
  const expected = EXPECTED[mode];
  it('inside the workspace', () => {
    for (const path of INSIDE())
      for (const call of edits(path)) {
        expect(judge(shell, { mode, workspaceRoot: root }, call).verdict, `${call.toolName} ${path}`).toBe(
          expected.inside,
        );
      }
  });
  it('outside the workspace, after .., // and symlinks', () => {
    for (const path of OUTSIDE())
      for (const call of edits(path)) {
        expect(judge(shell, { mode, workspaceRoot: root }, call).verdict, `${call.toolName} ${path}`).toBe(
          expected.outside,
        );
      }
  });
  it('on protected paths', () => {
    for (const path of PROTECTED)
      for (const call of edits(path)) {
        expect(judge(shell, { mode, workspaceRoot: root }, call).verdict, `${call.toolName} ${path}`).toBe(
          expected.protected,
        );
      }
  });
});

describe('edit rules and session rules are confined the same way', () => {
  it('an edit rule allows inside the workspace, and asks outside it and on protected paths', () => {
    const setup = { allow: ['Edit(**)', 'Edit(/etc/**)'], workspaceRoot: root };
    expect(judge(shell, setup, edits('src/a.ts')[0]!).verdict).toBe('allow');
    expect(judge(shell, setup, edits('/etc/passwd')[0]!)).toMatchObject({
      verdict: 'ask',
      reason: { kind: 'confinement', concern: 'outside_workspace' },
    });
    expect(judge(shell, setup, edits('.git/config')[0]!)).toMatchObject({
      verdict: 'ask',
      reason: { kind: 'confinement', concern: 'protected_path' },
    });
  });

  it('a session allow-always rule for an edit (the exact call) is confined too', () => {
    const granted = (call: PolicyCall) => {
      const rule = ruleForCall(call.toolName, call.args)!;
      return {
        sessionRules: [{ id: `allow:${rule}`, behavior: 'allow' as const, rule }],
        workspaceRoot: root,
      };
    };
    const [inside, home, hook] = [
      edits('src/a.ts')[0]!,
      edits('~/.bashrc')[0]!,
      edits('.git/hooks/pre-commit')[0]!,
    ];
    expect(judge(shell, granted(inside), inside).verdict).toBe('allow');
    expect(judge(shell, granted(home), home).verdict).toBe('ask');
    expect(judge(shell, granted(hook), hook).verdict).toBe('ask');
  });

  it('without a workspace root every edit asks, even in acceptEdits (positive control: with one, src/a.ts is allowed)', () => {
    expect(judge(shell, { mode: 'acceptEdits' }, edits('src/a.ts')[0]!)).toMatchObject({
      verdict: 'ask',
      reason: { kind: 'confinement', concern: 'no_workspace' },
    });
    expect(judge(shell, { mode: 'acceptEdits', workspaceRoot: root }, edits('src/a.ts')[0]!).verdict).toBe(
      'allow',
    );
  });

  it('an edit tool the gate cannot read a path from asks in acceptEdits', () => {
    for (const call of [
      { toolName: 'CodexPatch', args: { patch: '...' } },
      { toolName: 'mcp__fs__write', kind: 'edit', args: { path: 'src/a.ts' } },
      { toolName: 'Edit', args: {} },
    ]) {
      expect(judge(shell, { mode: 'acceptEdits', workspaceRoot: root }, call).verdict, call.toolName).toBe(
        'ask',
      );
    }
  });

  it('the fsmonitor chain: writing core.fsmonitor into .git/config is not auto-allowed, so `git status` cannot run it', () => {
    const setup = { mode: 'acceptEdits' as const, allow: ['Bash(git status:*)'], workspaceRoot: root };
    const plant = {
      toolName: 'Edit',
      args: { file_path: '.git/config', new_string: 'fsmonitor = ./payload' },
    };
    expect(judge(shell, setup, plant).verdict).toBe('ask');
    expect(judge(shell, setup, { toolName: 'Bash', args: { command: 'git status' } }).verdict).toBe('allow');
  });

  it('editConcern names the reason', () => {
    expect(editConcern('src/a.ts', root)).toBeUndefined();
    expect(editConcern('src/a.ts', undefined)).toBe('no_workspace');
    expect(editConcern(undefined, root)).toBe('no_path');
    expect(editConcern('src/elsewhere/x', root)).toBe('outside_workspace');
    expect(editConcern('gitdir/config', root)).toBe('protected_path');
  });
});
