import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { editConcern } from '../../../packages/sdk/src/policy/editScope.js';
import { loadShellParser, type ShellParser } from 'happy-session/permissions';
import {
  GIT_DIRECTORY_NAMES,
  PROTECTED_NAMES,
  PROTECTED_PATHS,
  type ProtectedGroup,
} from '../../../packages/sdk/src/policy/protectedPaths.js';
import { judge } from '../helpers.js';

/**
 * Files that become code (docs/permissions-policy.md, "Protected paths"; issue 23, class 4): no
 * mode or rule writes them without asking, at any depth, without case, as written or as
 * resolved. Git internals are caught by what the directory already holds, read from a real
 * directory tree.
 */

let shell: ShellParser;
let root: string;

beforeAll(async () => {
  shell = await loadShellParser();
  root = realpathSync(mkdtempSync(join(tmpdir(), 'happy-protected-')));
  // A React project: hooks and config folders side by side, no repository in sight.
  for (const dir of ['src/hooks', 'src/config', 'src/info']) mkdirSync(join(root, dir), { recursive: true });
  writeFileSync(join(root, 'src', 'hooks', 'useThing.ts'), '\n');
  writeFileSync(join(root, 'src', 'config', 'index.ts'), '\n');
  // A directory on its way to being a bare repository, at each stage.
  mkdirSync(join(root, 'bare'));
  writeFileSync(join(root, 'bare', 'HEAD'), 'ref: refs/heads/main\n');
  mkdirSync(join(root, 'half', 'objects'), { recursive: true });
  mkdirSync(join(root, 'reffy', 'refs'), { recursive: true });
  mkdirSync(join(root, 'vendor', 'lib.git'), { recursive: true });
  writeFileSync(join(root, 'vendor', 'lib.git', 'packed-refs'), '\n');
  // A name reached through a link: innocent as written, protected where it lands.
  mkdirSync(join(root, '.github', 'workflows'), { recursive: true });
  symlinkSync('.github/workflows', join(root, 'ci'));
  symlinkSync('bare', join(root, 'innocent'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const write = (path: string) => ({ toolName: 'Write', args: { file_path: path, content: 'x' } });
const acceptEdits = () => ({ mode: 'acceptEdits' as const, workspaceRoot: root });

/** A path under each entry: the entry itself, and for trees a file below it. */
function underEntry(name: string, scope: 'tree' | 'file'): string[] {
  return scope === 'tree' ? [name, `${name}/x`] : [name];
}

const GROUPS: ProtectedGroup[] = ['git', 'agent', 'ci', 'editor', 'shell', 'tool', 'secrets'];

describe.each(GROUPS.map((g) => [g]))('every protected path of group %s asks under acceptEdits', (group) => {
  const entries = PROTECTED_PATHS.filter((p) => p.group === group);
  it('has entries', () => expect(entries.length).toBeGreaterThan(0));
  it('at the root, deep below it, in upper case, with a trailing dot, and with an invisible mark', () => {
    for (const entry of entries) {
      for (const path of underEntry(entry.name, entry.scope)) {
        const upper = path.toUpperCase();
        const dotted = path.replace(/^([^/]+)/, '$1.');
        const marked = path.replace(/^(.)/, '$1\u200b');
        for (const variant of [path, `packages/app/${path}`, upper, dotted, marked]) {
          expect(judge(shell, acceptEdits(), write(variant)), `${entry.name}: ${variant}`).toMatchObject({
            verdict: 'ask',
            reason: { kind: 'confinement', concern: 'protected_path' },
          });
        }
      }
    }
  });
});

describe('protected names, wherever they are', () => {
  const HOSTILE = [
    'HEAD',
    'sub/dir/HEAD',
    'head',
    '.env',
    '.env.local',
    'app/.ENV.production',
    '.envrc',
    '.env/bin/activate',
    '--checkpoint-action=exec=sh x.sh',
    '--checkpoint=1',
    'uploads/-rf',
    '-dir/file',
  ];
  it.each(HOSTILE.map((p) => [p]))('%s asks under acceptEdits and under an edit allow rule', (path) => {
    expect(editConcern(path, root)).toBe('protected_path');
    expect(judge(shell, acceptEdits(), write(path)).verdict).toBe('ask');
    expect(judge(shell, { allow: ['Write'], workspaceRoot: root }, write(path)).verdict).toBe('ask');
  });
  it('names reached through a symlink are protected where they land', () => {
    expect(editConcern('ci/deploy.yml', root)).toBe('protected_path');
    expect(editConcern('innocent/config', root)).toBe('protected_path');
  });
});

describe('git internals: a directory that holds, or is becoming, a repository', () => {
  const HOSTILE = [
    'bare/config',
    'bare/objects/ab/cdef',
    'bare/refs/heads/main',
    'bare/hooks/post-checkout',
    'bare/info/attributes',
    'bare/packed-refs',
    'half/refs/heads/main',
    'half/config',
    'half/HEAD',
    'reffy/objects/ab/cd',
    'reffy/hooks/pre-commit',
    'vendor/lib.git/config',
    'vendor/lib.git/hooks/post-merge',
    'deep/.git/config',
    'x/.GIT/hooks/pre-push',
  ];
  it.each(HOSTILE.map((p) => [p]))('%s asks', (path) => {
    expect(editConcern(path, root)).toBe('protected_path');
  });

  it('positive controls: React hooks, a config folder and plain files are still allowed', () => {
    for (const path of [
      'src/hooks/useThing.ts',
      'src/hooks/useNew.ts',
      'src/config/index.ts',
      'src/info/about.md',
      'src/a.ts',
      'half/objects/notes.txt',
      'reffy/refs/index.md',
      'docs/head.html',
      'src/environment.ts',
      'src/my-env.ts',
      'README.md',
    ]) {
      expect(judge(shell, acceptEdits(), write(path)).verdict, path).toBe('allow');
    }
  });

  it('names every git internal the table speaks of', () => {
    for (const name of GIT_DIRECTORY_NAMES.filter((n) => n !== 'head')) {
      expect(editConcern(`bare/${name}`, root), name).toBe('protected_path');
      expect(editConcern(`src/${name}/x.ts`, root), name).toBeUndefined();
    }
  });
});

describe('docs/permissions-policy.md lists the whole table', () => {
  const doc = readFileSync(
    fileURLToPath(new URL('../../../docs/permissions-policy.md', import.meta.url)),
    'utf8',
  );
  const listed = new Set([...doc.matchAll(/^\| `([^`]+)` +\|/gm)].map((m) => m[1]!));
  it('every protected path and name is a row of the table, and every row is in the code', () => {
    const inCode = new Set([...PROTECTED_PATHS.map((p) => p.name), ...PROTECTED_NAMES.map((p) => p.pattern)]);
    expect([...inCode].filter((name) => !listed.has(name))).toEqual([]);
    expect([...listed].filter((name) => !inCode.has(name))).toEqual([]);
  });
});
