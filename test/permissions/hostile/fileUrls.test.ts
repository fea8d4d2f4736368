import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
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
 * Issue 35, item 7: a path argument written as a `file:` URL names the path it decodes to
 * (docs/permissions-policy.md, "How a path is judged"), not a relative directory called `file:`;
 * a URL of another scheme, or a `file:` URL of another host, names nothing the policy can place,
 * so the call asks. Edits, reads and path rules read it the same way.
 */

let shell: ShellParser;
// Made when the file loads: the tables below name these paths.
const base = realpathSync(mkdtempSync(join(tmpdir(), 'happy-file-urls-')));
const root = join(base, 'ws');
mkdirSync(join(root, 'src'), { recursive: true });
writeFileSync(join(root, 'src', 'a.ts'), '\n');
mkdirSync(join(base, 'outside'));
writeFileSync(join(base, 'outside', 'id_ed25519'), 'key\n');

beforeAll(async () => {
  shell = await loadShellParser();
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const inMode = (mode: PermissionMode) => ({ mode, workspaceRoot: root });
const read = (file_path: string): PolicyCall => ({ toolName: 'Read', args: { file_path } });
const write = (file_path: string): PolicyCall => ({ toolName: 'Write', args: { file_path, content: 'x' } });

/** URLs that name a file outside the workspace, or nothing the policy can place. */
const OUTSIDE: string[] = [
  'file:///etc/passwd',
  'FILE:///etc/passwd',
  'file://localhost/etc/passwd',
  'file:///etc/%70asswd',
  'file:/etc/passwd',
  'file:etc/passwd',
  `file://${base}/outside/id_ed25519`,
  `file://${root}/../outside/id_ed25519`,
  `file://${root}/src/%2e%2e/%2e%2e/outside/id_ed25519`,
  'file://other-host/share/x',
  'file:///etc/passwd%00.txt',
  'file://[::1/x',
  'http://example.test/etc/passwd',
  'smb://host/share/x',
  'ftp://host/x',
];

describe('file: URLs and other schemes in path arguments', () => {
  it.each(OUTSIDE)('Read %s asks in plan mode (it allows reads only inside the workspace)', (url) => {
    expect(judge(shell, inMode('plan'), read(url)).verdict).toBe('ask');
  });

  it.each(OUTSIDE)('Write %s asks in acceptEdits', (url) => {
    expect(judge(shell, inMode('acceptEdits'), write(url)).verdict).toBe('ask');
  });

  it.each([
    ['Glob', { pattern: 'file:///etc/*' }],
    ['Glob', { path: 'file:///etc', pattern: '*' }],
    ['LS', { path: 'file:///' }],
    ['Grep', { pattern: 'BEGIN', path: `file://${base}/outside` }],
    ['NotebookRead', { notebook_path: 'file:///etc/x.ipynb' }],
  ])('%s %j asks in plan mode', (toolName, args) => {
    expect(judge(shell, inMode('plan'), { toolName, args }).verdict).toBe('ask');
  });

  it.each([
    ['file:///etc/passwd'],
    ['file://localhost/etc/passwd'],
    ['file:///etc/%70asswd'],
    ['file:///etc/./passwd'],
  ])('a deny rule Read(/etc/**) denies Read %s in bypassPermissions', (url) => {
    expect(
      judge(shell, { mode: 'bypassPermissions', deny: ['Read(/etc/**)'], workspaceRoot: root }, read(url))
        .verdict,
    ).toBe('deny');
  });

  it.each(['http://example.test/etc/passwd', 'file://other-host/etc/passwd'])(
    'a deny rule Read(/etc/**) cannot place Read %s, so it is denied where nobody would be asked',
    (url) => {
      expect(
        judge(shell, { mode: 'bypassPermissions', deny: ['Read(/etc/**)'], workspaceRoot: root }, read(url))
          .verdict,
      ).toBe('deny');
    },
  );

  it('an allow rule Read(/etc/**) does not cover a file: URL of the workspace that also reads as a relative file: directory', () => {
    // As written, `file:/etc/hosts` is the relative path ./file:/etc/hosts; both readings must match an allow rule.
    expect(
      judge(shell, { allow: ['Read(/etc/**)'], workspaceRoot: root }, read('file:/etc/hosts')).verdict,
    ).toBe('ask');
  });
});

describe('positive controls: file: URLs inside the workspace and plain paths are allowed', () => {
  const inside: string[] = [
    `file://${root}/src/a.ts`,
    `file://localhost${root}/src/a.ts`,
    `file://${root}/src/%61.ts`,
    'src/a.ts',
    join(root, 'src', 'a.ts'),
    'src/with:colon.ts',
  ];

  it.each(inside)('Read %s is allowed in plan mode', (path) => {
    expect(judge(shell, inMode('plan'), read(path)).verdict).toBe('allow');
  });

  it.each(inside)('Write %s is allowed in acceptEdits', (path) => {
    expect(judge(shell, inMode('acceptEdits'), write(path)).verdict).toBe('allow');
  });

  it('Glob of a file: URL inside the workspace is allowed in plan mode', () => {
    expect(
      judge(shell, inMode('plan'), { toolName: 'Glob', args: { pattern: `file://${root}/src/*.ts` } })
        .verdict,
    ).toBe('allow');
  });

  it('a deny rule Read(/etc/**) does not deny a file: URL inside the workspace', () => {
    expect(
      judge(
        shell,
        { mode: 'bypassPermissions', deny: ['Read(/etc/**)'], workspaceRoot: root },
        read(`file://${root}/src/a.ts`),
      ).verdict,
    ).toBe('allow');
  });
});
