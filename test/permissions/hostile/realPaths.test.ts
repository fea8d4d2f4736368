import { linkSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { editConcern } from '../../../packages/sdk/src/policy/editScope.js';
import {
  loadShellParser,
  type PermissionMode,
  type PolicyCall,
  type ShellParser,
} from 'happy-session/permissions';
import { MAX_SYMLINKS, resolveLikeKernel } from '../../../packages/sdk/src/policy/realPath.js';
import { judge } from '../helpers.js';

/**
 * Paths are judged where the kernel takes them (docs/permissions-policy.md, "How a path is
 * judged"; issue 23, class 3): symlinks are followed as they are met and `..` is applied to the
 * directory reached, not to the text; a tool that normalises the text first must land inside too.
 * Read deny rules see the resolved path; a file with several hard links, or a root at or above
 * `$HOME`, asks. Real directories, symlinks and hard links in a temporary directory.
 */

let shell: ShellParser;
let base: string;
let root: string;
let outside: string;

beforeAll(async () => {
  shell = await loadShellParser();
  base = realpathSync(mkdtempSync(join(tmpdir(), 'happy-realpaths-')));
  root = join(base, 'ws');
  outside = join(base, 'outside');
  mkdirSync(join(outside, 'deep', 'er'), { recursive: true });
  writeFileSync(join(outside, 'x'), 'outside\n');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'src', 'a.ts'), 'export {};\n');
  // `src/elsewhere/../../x`: the kernel lands in outside/x, the text in the workspace.
  symlinkSync(join(outside, 'deep', 'er'), join(root, 'src', 'elsewhere'));
  // Every npm or yarn workspace has links like this one, pointing inside.
  mkdirSync(join(root, 'packages', 'lib'), { recursive: true });
  writeFileSync(join(root, 'packages', 'lib', 'index.js'), '\n');
  mkdirSync(join(root, 'node_modules', '@org'), { recursive: true });
  symlinkSync('../../packages/lib', join(root, 'node_modules', '@org', 'lib'));
  symlinkSync('packages/lib', join(root, 'twodeep'));
  // A read deny rule's files, and links to them.
  mkdirSync(join(root, 'secrets'));
  writeFileSync(join(root, 'secrets', 'key'), 'secret\n');
  writeFileSync(join(root, '.env'), 'TOKEN=1\n');
  mkdirSync(join(root, 'docs'));
  writeFileSync(join(root, 'docs', 'guide.md'), '# guide\n');
  symlinkSync('../secrets', join(root, 'docs', 'assets'));
  symlinkSync('.env', join(root, 'settings.txt'));
  // Hard links, loops, long chains.
  writeFileSync(join(root, 'src', 'h.ts'), '\n');
  linkSync(join(root, 'src', 'h.ts'), join(root, 'src', 'h2.ts'));
  symlinkSync('loop-b', join(root, 'loop-a'));
  symlinkSync('loop-a', join(root, 'loop-b'));
  symlinkSync('src', join(root, 'chain-0'));
  for (let i = 1; i <= MAX_SYMLINKS + 1; i++) symlinkSync(`chain-${i - 1}`, join(root, `chain-${i}`));
  symlinkSync('chain-3', join(root, 'short-chain'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

function edit(path: string): PolicyCall {
  return { toolName: 'Write', args: { file_path: path, content: 'x' } };
}
function read(path: string): PolicyCall {
  return { toolName: 'Read', args: { file_path: path } };
}
const acceptEdits = () => ({ mode: 'acceptEdits' as PermissionMode, workspaceRoot: root });

describe('resolving like the kernel', () => {
  it('follows a symlink before applying ..', () => {
    expect(resolveLikeKernel('src/elsewhere/../../x', root)).toMatchObject({
      ok: true,
      path: join(outside, 'x'),
    });
    expect(resolveLikeKernel('node_modules/@org/lib/../../../.gitconfig', root)).toMatchObject({
      ok: true,
      path: join(base, '.gitconfig'),
    });
  });

  it('fails closed on a loop, a chain longer than the kernel follows, and .. after a missing component', () => {
    expect(resolveLikeKernel('loop-a/x', root)).toEqual({ ok: false, reason: 'loop' });
    expect(resolveLikeKernel(`chain-${MAX_SYMLINKS + 1}/a.ts`, root)).toEqual({ ok: false, reason: 'loop' });
    expect(resolveLikeKernel('src/missing/../a.ts', root)).toEqual({
      ok: false,
      reason: 'dotdot_after_missing',
    });
    expect(resolveLikeKernel('src/a.ts/x', root)).toEqual({ ok: false, reason: 'not_a_directory' });
    expect(resolveLikeKernel('~/.ssh/id_ed25519', root)).toEqual({ ok: false, reason: 'invalid' });
    // Judging one path is bounded: a walk that examines too many components is not placed.
    expect(resolveLikeKernel(`${'src/../'.repeat(300)}src/a.ts`, root)).toEqual({
      ok: false,
      reason: 'too_many_steps',
    });
    expect(editConcern(`${'src/../'.repeat(300)}src/a.ts`, root)).toBe('outside_workspace');
  });

  it('positive controls: a short chain and a link inside resolve where they point', () => {
    expect(resolveLikeKernel('short-chain/a.ts', root)).toMatchObject({
      ok: true,
      path: join(root, 'src', 'a.ts'),
    });
    expect(resolveLikeKernel('node_modules/@org/lib/index.js', root)).toMatchObject({
      ok: true,
      path: join(root, 'packages', 'lib', 'index.js'),
    });
  });
});

describe('edits judged where they land', () => {
  const HOSTILE: [string, string][] = [
    ['src/elsewhere/../../x', 'outside_workspace'],
    // The kernel lands in the workspace, a tool that normalises the text first lands outside.
    ['twodeep/../../outside/x', 'outside_workspace'],
    ['node_modules/@org/lib/../../../.gitconfig', 'outside_workspace'],
    ['node_modules/@org/lib/../../.gitconfig', 'protected_path'],
    ['src/missing/../a.ts', 'outside_workspace'],
    ['loop-a/x', 'outside_workspace'],
    [`chain-${MAX_SYMLINKS + 1}/a.ts`, 'outside_workspace'],
    ['src/h.ts', 'hard_link'],
    ['src/h2.ts', 'hard_link'],
  ];
  it.each(HOSTILE)('%s asks under acceptEdits (%s)', (path, concern) => {
    expect(judge(shell, acceptEdits(), edit(path))).toMatchObject({
      verdict: 'ask',
      reason: { kind: 'confinement', concern },
    });
    expect(editConcern(path, root)).toBe(concern);
  });

  it('an edit allow rule is held to the same readings', () => {
    const setup = { allow: ['Write(**)'], workspaceRoot: root };
    for (const [path] of HOSTILE) expect(judge(shell, setup, edit(path)).verdict, path).toBe('ask');
    expect(judge(shell, setup, edit('src/a.ts')).verdict).toBe('allow');
  });

  it('positive controls: inside the workspace, through links inside it, are allowed under acceptEdits', () => {
    const allowed = [
      'src/a.ts',
      'src/new/file.ts',
      'node_modules/@org/lib/index.js',
      'node_modules/@org/lib/new.js',
      'twodeep/index.js',
      'short-chain/a.ts',
      'src/../docs/guide.md',
      join(root, 'src', 'a.ts'),
    ];
    for (const path of allowed) expect(judge(shell, acceptEdits(), edit(path)).verdict, path).toBe('allow');
  });
});

describe('read deny rules see the resolved path', () => {
  const MODES: PermissionMode[] = [
    'default',
    'acceptEdits',
    'plan',
    'read-only',
    'safe-yolo',
    'bypassPermissions',
  ];
  const deny = ['Read(secrets/**)', 'Read(.env)'];

  it.each(MODES.map((m) => [m]))('in %s, a link to the denied files is denied', (mode) => {
    for (const path of [
      'docs/assets/key',
      'settings.txt',
      'secrets/key',
      '.env',
      '.ENV',
      'docs/../secrets/key',
    ]) {
      expect(judge(shell, { mode, deny, workspaceRoot: root }, read(path)).verdict, path).toBe('deny');
    }
  });

  it('every path argument of the tool counts: Read with file_path and path', () => {
    const call = { toolName: 'Read', args: { file_path: 'docs/guide.md', path: 'docs/assets/key' } };
    expect(judge(shell, { mode: 'plan', deny, workspaceRoot: root }, call).verdict).toBe('deny');
    const setup = { allow: ['Read(docs/guide.md)'], workspaceRoot: root };
    expect(judge(shell, setup, call).verdict).toBe('ask');
  });

  it('Read deny rules hold for the other tools that read files, through the link too', () => {
    const setup = { mode: 'plan' as const, deny, workspaceRoot: root };
    for (const call of [
      { toolName: 'Grep', args: { pattern: 'KEY', path: 'docs/assets' } },
      { toolName: 'Grep', args: { pattern: 'KEY', path: 'secrets' } },
      { toolName: 'LS', args: { path: 'docs/assets' } },
      { toolName: 'Glob', args: { pattern: 'docs/assets/*' } },
      { toolName: 'Grep', args: { pattern: 'TOKEN', path: 'settings.txt' } },
    ]) {
      expect(judge(shell, setup, call).verdict, JSON.stringify(call)).toBe('deny');
    }
    // Positive controls: searches elsewhere, and over the whole workspace, run as the mode says.
    for (const call of [
      { toolName: 'Grep', args: { pattern: 'x' } },
      { toolName: 'Grep', args: { pattern: 'x', path: 'src' } },
      { toolName: 'LS', args: { path: root } },
      { toolName: 'Glob', args: { pattern: '**/*.md' } },
    ]) {
      expect(judge(shell, setup, call).verdict, JSON.stringify(call)).toBe('allow');
    }
  });

  it('positive control: other files are read as the mode says', () => {
    expect(judge(shell, { mode: 'plan', deny, workspaceRoot: root }, read('docs/guide.md')).verdict).toBe(
      'allow',
    );
    expect(judge(shell, { mode: 'plan', deny, workspaceRoot: root }, read('src/a.ts')).verdict).toBe('allow');
    expect(judge(shell, { mode: 'default', deny, workspaceRoot: root }, read('src/a.ts')).verdict).toBe(
      'ask',
    );
  });

  it('an allow rule must match every reading: Read(docs/**) does not cover a link into secrets', () => {
    const setup = { allow: ['Read(docs/**)'], workspaceRoot: root };
    expect(judge(shell, setup, read('docs/guide.md')).verdict).toBe('allow');
    expect(judge(shell, setup, read('docs/assets/key')).verdict).toBe('ask');
  });

  it('a file with several hard links cannot be told apart from a denied one: asked, or denied where nobody is asked', () => {
    expect(judge(shell, { mode: 'default', deny, workspaceRoot: root }, read('src/h.ts')).verdict).toBe(
      'ask',
    );
    expect(judge(shell, { mode: 'plan', deny, workspaceRoot: root }, read('src/h.ts')).verdict).toBe('deny');
  });
});

describe('hard links', () => {
  it('a read under plan of a file with several links asks; one link is allowed', () => {
    expect(judge(shell, { mode: 'plan', workspaceRoot: root }, read('src/h2.ts'))).toMatchObject({
      verdict: 'ask',
      reason: { kind: 'confinement', concern: 'hard_link' },
    });
    expect(judge(shell, { mode: 'plan', workspaceRoot: root }, read('src/a.ts')).verdict).toBe('allow');
  });
});

describe('a workspace root at or above $HOME allows no edit without asking', () => {
  const saved = process.env['HOME'];
  afterEach(() => {
    process.env['HOME'] = saved;
  });

  it('root equal to $HOME', () => {
    process.env['HOME'] = root;
    expect(judge(shell, acceptEdits(), edit('src/a.ts'))).toMatchObject({
      verdict: 'ask',
      reason: { kind: 'confinement', concern: 'home_workspace' },
    });
    expect(judge(shell, { mode: 'plan', workspaceRoot: root }, read('src/a.ts')).verdict).toBe('ask');
  });

  it('root above $HOME, and $HOME reached through a symlink', () => {
    process.env['HOME'] = join(root, 'src', 'new', 'home');
    expect(judge(shell, acceptEdits(), edit('src/a.ts')).verdict).toBe('ask');
    process.env['HOME'] = join(root, 'short-chain');
    expect(judge(shell, acceptEdits(), edit('src/a.ts')).verdict).toBe('ask');
    expect(
      judge(shell, { ...acceptEdits(), workspaceRoot: '/' }, edit(join(root, 'src', 'a.ts'))).verdict,
    ).toBe('ask');
  });

  it('positive control: $HOME elsewhere', () => {
    process.env['HOME'] = join(base, 'home-elsewhere');
    expect(judge(shell, acceptEdits(), edit('src/a.ts')).verdict).toBe('allow');
  });
});
