import { spawnSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  loadShellParser,
  type PermissionMode,
  type PolicyCall,
  type ShellParser,
} from 'happy-session/permissions';
import { judge } from '../helpers.js';

/**
 * Issue 35, class 1, across two calls: an edit tool (Write, Edit, MultiEdit, NotebookEdit) that
 * writes where a program finds code it runs (a protected path: `.git/config`, a hook,
 * `~/.gitconfig`, `~/.ssh/config`) lets the next line the rules allow (`git status`) run what a
 * deny rule about Bash forbids. While such rules are in force, that edit is judged like a line the
 * rules cannot be checked on: denied where nobody would be asked (bypassPermissions, dontAsk),
 * asked elsewhere. Real git shows the planted config runs a command on `git status`; edits
 * elsewhere, and every edit without rules about Bash, are as before (the positive controls).
 */

let shell: ShellParser;
let work: string;
beforeAll(async () => {
  shell = await loadShellParser();
  work = realpathSync(mkdtempSync(join(tmpdir(), 'edit-plants-')));
  mkdirSync(join(work, '.git', 'hooks'), { recursive: true });
  mkdirSync(join(work, 'src'));
  writeFileSync(join(work, '.git', 'config'), '[core]\n');
  symlinkSync(join(work, '.git', 'config'), join(work, 'settings.ini'));
  symlinkSync(join(work, '.git'), join(work, 'meta'));
  symlinkSync(join(work, 'nowhere', 'x'), join(work, 'dangling'));
});
afterAll(() => rmSync(work, { recursive: true, force: true }));

const DENY = { deny: ['Bash(rm:*)'] };
const write = (file_path: string): PolicyCall => ({ toolName: 'Write', args: { file_path, content: 'x' } });

const PLANTING: Array<[string, () => PolicyCall]> = [
  ['Write .git/config', () => write(join(work, '.git/config'))],
  ['Write a relative .git/config', () => write('.git/config')],
  ['Write through ..', () => write(join(work, 'src/../.git/config'))],
  ['Write .GIT/config in capitals', () => write(join(work, '.GIT/config'))],
  ['Write a file: URL', () => write(`file://${join(work, '.git/config')}`)],
  ['Write a symlink to .git/config', () => write(join(work, 'settings.ini'))],
  ['Write under a symlink to .git', () => write(join(work, 'meta/hooks/post-checkout'))],
  ['Write through a dangling link (it may land anywhere)', () => write(join(work, 'dangling'))],
  [
    'Edit a hook',
    () => ({
      toolName: 'Edit',
      args: { file_path: join(work, '.git/hooks/pre-commit'), old_string: 'a', new_string: 'b' },
    }),
  ],
  [
    'MultiEdit the config',
    () => ({
      toolName: 'MultiEdit',
      args: { file_path: join(work, '.git/config'), edits: [{ old_string: 'a', new_string: 'b' }] },
    }),
  ],
  ['Write the user git config', () => write('/home/someone/.gitconfig')],
  ['Write git config under XDG', () => write('/home/someone/.config/git/config')],
  ['Write ssh client config', () => write('/home/someone/.ssh/config')],
  ['Write .gitattributes (filter drivers)', () => write(join(work, '.gitattributes'))],
];

describe('an edit that plants code, while a deny rule about Bash is in force', () => {
  it('real git: a core.fsmonitor written into .git/config runs on the next `git status`', () => {
    const repo = mkdtempSync(join(tmpdir(), 'edit-plants-git-'));
    try {
      expect(spawnSync('git', ['init', '-q', repo]).status).toBe(0);
      const marker = join(repo, 'ran');
      // What a Write of .git/config puts there.
      writeFileSync(
        join(repo, '.git', 'config'),
        `[core]\n\trepositoryformatversion = 0\n\tbare = false\n\tfsmonitor = touch ${marker} #\n`,
      );
      spawnSync('git', ['status'], { cwd: repo });
      expect(existsSync(marker)).toBe(true);
    } finally {
      rmSync(repo, { recursive: true, force: true });
    }
  });

  it.each(PLANTING)('%s is denied in bypassPermissions and dontAsk', (_name, call) => {
    for (const mode of ['bypassPermissions', 'dontAsk'] as PermissionMode[]) {
      expect(judge(shell, { ...DENY, mode, workspaceRoot: work }, call()), mode).toMatchObject({
        verdict: 'deny',
      });
    }
  });

  it.each(PLANTING)(
    '%s asks in default and acceptEdits, even with an allow rule for Write',
    (_name, call) => {
      for (const mode of ['default', 'acceptEdits'] as PermissionMode[]) {
        const verdict = judge(
          shell,
          { ...DENY, allow: ['Write', 'Edit', 'MultiEdit'], mode, workspaceRoot: work },
          call(),
        ).verdict;
        expect(verdict, mode).toBe('ask');
      }
    },
  );

  it('under an ask rule about Bash, it asks in bypassPermissions and is denied in dontAsk', () => {
    const call = write(join(work, '.git/config'));
    const rules = { ask: ['Bash(git push:*)'], workspaceRoot: work };
    expect(judge(shell, { ...rules, mode: 'bypassPermissions' }, call).verdict).toBe('ask');
    expect(judge(shell, { ...rules, mode: 'dontAsk' }, call).verdict).toBe('deny');
  });
});

describe('positive controls', () => {
  it.each([
    ['a source file', () => write(join(work, 'src/app.ts'))],
    ['a file named like git config elsewhere', () => write(join(work, 'docs/gitconfig-guide.md'))],
    ['a relative file', () => write('src/index.ts')],
  ] as Array<[string, () => PolicyCall]>)(
    '%s is written in bypassPermissions under Bash(rm:*)',
    (_name, call) => {
      expect(judge(shell, { ...DENY, mode: 'bypassPermissions', workspaceRoot: work }, call()).verdict).toBe(
        'allow',
      );
    },
  );

  it('without rules about Bash, bypassPermissions writes .git/config as before', () => {
    const call = write(join(work, '.git/config'));
    expect(judge(shell, { mode: 'bypassPermissions', workspaceRoot: work }, call).verdict).toBe('allow');
    expect(
      judge(shell, { deny: ['Read(./secrets/**)'], mode: 'bypassPermissions', workspaceRoot: work }, call)
        .verdict,
    ).toBe('allow');
  });

  it('reading .git/config is a read, not a plant', () => {
    const call: PolicyCall = { toolName: 'Read', args: { file_path: join(work, '.git/config') } };
    expect(judge(shell, { ...DENY, mode: 'bypassPermissions', workspaceRoot: work }, call).verdict).toBe(
      'allow',
    );
  });
});
