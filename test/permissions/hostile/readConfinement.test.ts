import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  PERMISSION_MODES,
  loadShellParser,
  type ModeTableOverrides,
  type PermissionMode,
  type PolicyCall,
  type ShellParser,
} from 'happy-session/permissions';
import { remoteModeChangeAllowed } from '../../../packages/sdk/src/policy/modeCeiling.js';
import { allowsNoMoreThan } from '../../../packages/sdk/src/policy/modeCeiling.js';
import { judge } from '../helpers.js';

/**
 * Reads stay in the workspace, and lowering the mode never allows more (docs/permissions-policy.md,
 * "Reads stay in the workspace", "Mode ceiling"; issue 23, class 7): a mode that allows reads
 * allows them only inside the workspace root, in every mode but bypassPermissions, including
 * cells a host retargets; a "lower" mode is one that allows nothing the current one asks for.
 */

let shell: ShellParser;
let base: string;
let root: string;

beforeAll(async () => {
  shell = await loadShellParser();
  base = realpathSync(mkdtempSync(join(tmpdir(), 'happy-reads-')));
  root = join(base, 'ws');
  mkdirSync(join(root, 'src'), { recursive: true });
  writeFileSync(join(root, 'src', 'a.ts'), '\n');
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(base, 'outside', 'id_ed25519'), 'key\n');
  symlinkSync(join(base, 'outside'), join(root, 'src', 'elsewhere'));
  symlinkSync('../src', join(root, 'src', 'self'));
});
afterAll(() => rmSync(base, { recursive: true, force: true }));

const OUTSIDE = (): PolicyCall[] => [
  { toolName: 'Read', args: { file_path: '~/.ssh/id_ed25519' } },
  { toolName: 'Read', args: { file_path: '/etc/passwd' } },
  { toolName: 'Read', args: { file_path: '../outside/id_ed25519' } },
  { toolName: 'Read', args: { file_path: 'src/elsewhere/id_ed25519' } },
  { toolName: 'Read', args: { file_path: 'src/a.ts', path: '/etc/passwd' } },
  { toolName: 'NotebookRead', args: { notebook_path: '/etc/x.ipynb' } },
  { toolName: 'LS', args: { path: '/' } },
  { toolName: 'Glob', args: { path: '/etc', pattern: '*' } },
  { toolName: 'Glob', args: { pattern: '/etc/**' } },
  { toolName: 'Glob', args: { pattern: '../**/id_*' } },
  { toolName: 'Glob', args: { pattern: 'src/**/../../../outside/*' } },
  { toolName: 'Grep', args: { pattern: 'BEGIN', path: join(base, 'outside') } },
  { toolName: 'Grep', args: { pattern: 'BEGIN', path: 'src/elsewhere' } },
  { toolName: 'Read', args: { file_path: ['/etc/passwd'] } },
  { toolName: 'mcp__fs__read_file', kind: 'read', args: { path: '/etc/passwd' } },
  { toolName: 'mcp__fs__read_file', kind: 'read', args: { path: '~/.aws/credentials' } },
  { toolName: 'mcp__fs__read_many', kind: 'read', args: { paths: ['src/a.ts', '/etc/shadow'] } },
  { toolName: 'mcp__fs__search', kind: 'search', args: { root: 'file:///etc/' } },
  { toolName: 'read_file', kind: 'read', args: { locations: [{ path: '/etc/passwd' }] } },
  { toolName: 'read_file', kind: 'read', args: { a: { b: { c: { d: { path: 'src/a.ts' } } } } } },
];

const INSIDE = (): PolicyCall[] => [
  { toolName: 'Read', args: { file_path: 'src/a.ts' } },
  { toolName: 'Read', args: { file_path: join(root, 'src', 'a.ts') } },
  { toolName: 'Read', args: { file_path: 'src/self/a.ts' } },
  { toolName: 'Read', args: { file_path: 'src/new.ts' } },
  { toolName: 'NotebookRead', args: { notebook_path: 'nb.ipynb' } },
  { toolName: 'LS', args: { path: root } },
  { toolName: 'LS', args: {} },
  { toolName: 'Glob', args: { pattern: '**/*.ts' } },
  { toolName: 'Glob', args: { pattern: 'src/**/*.ts', path: 'src' } },
  { toolName: 'Grep', args: { pattern: 'export' } },
  { toolName: 'Grep', args: { pattern: 'export', path: 'src', glob: '*.ts' } },
  { toolName: 'TodoWrite', args: { todos: [{ content: 'read /etc/passwd later' }] } },
  { toolName: 'mcp__fs__read_file', kind: 'read', args: { path: 'src/a.ts' } },
  { toolName: 'mcp__search__web', kind: 'search', args: { query: 'how to parse json' } },
  {
    toolName: 'read_file',
    kind: 'read',
    args: { locations: [{ path: join(root, 'src', 'a.ts'), line: 3 }] },
  },
];

/** What a mode does with a read inside and outside the workspace. */
const EXPECTED: Record<PermissionMode, { inside: string; outside: string }> = {
  default: { inside: 'ask', outside: 'ask' },
  acceptEdits: { inside: 'ask', outside: 'ask' },
  plan: { inside: 'allow', outside: 'ask' },
  'read-only': { inside: 'allow', outside: 'ask' },
  dontAsk: { inside: 'deny', outside: 'deny' },
  'safe-yolo': { inside: 'allow', outside: 'ask' },
  bypassPermissions: { inside: 'allow', outside: 'allow' },
};

describe.each(PERMISSION_MODES.map((m) => [m]))('reads in mode %s', (mode) => {
  const expected = EXPECTED[mode];
  it('outside the workspace', () => {
    for (const call of OUTSIDE()) {
      expect(judge(shell, { mode, workspaceRoot: root }, call).verdict, JSON.stringify(call)).toBe(
        expected.outside,
      );
    }
  });
  it('inside the workspace (positive control)', () => {
    for (const call of INSIDE()) {
      expect(judge(shell, { mode, workspaceRoot: root }, call).verdict, JSON.stringify(call)).toBe(
        expected.inside,
      );
    }
  });
});

describe('what else confines reads', () => {
  const read = { toolName: 'Read', args: { file_path: 'src/a.ts' } };
  const outside = { toolName: 'Read', args: { file_path: '/etc/passwd' } };

  it('without a workspace root a read that names a path asks, even in plan', () => {
    expect(judge(shell, { mode: 'plan' }, read)).toMatchObject({
      verdict: 'ask',
      reason: { kind: 'confinement', concern: 'no_workspace' },
    });
    expect(judge(shell, { mode: 'plan' }, { toolName: 'Grep', args: { pattern: 'x' } }).verdict).toBe('ask');
    // A think-kind tool names no file.
    expect(judge(shell, { mode: 'plan' }, { toolName: 'TodoWrite', args: { todos: [] } }).verdict).toBe(
      'allow',
    );
  });

  it('a cell the host retargets to allow is confined the same way', () => {
    const modeTable: ModeTableOverrides = {
      default: { read: 'allow', search: 'allow' },
      dontAsk: { read: 'allow' },
    };
    for (const mode of ['default', 'dontAsk'] as const) {
      const setup = { mode, modeTable, workspaceRoot: root };
      expect(judge(shell, setup, read).verdict).toBe('allow');
      expect(judge(shell, setup, outside).verdict).toBe(mode === 'dontAsk' ? 'deny' : 'ask');
    }
  });

  it('a whole-tool allow rule or a session grant for Read allows reads inside only', () => {
    const sessionRules = [{ id: 'allow:Read', behavior: 'allow' as const, rule: 'Read' }];
    for (const setup of [{ allow: ['Read'] }, { sessionRules }]) {
      expect(judge(shell, { ...setup, workspaceRoot: root }, read).verdict).toBe('allow');
      expect(judge(shell, { ...setup, workspaceRoot: root }, outside).verdict).toBe('ask');
    }
  });
});

describe('lowering the mode', () => {
  const LOWER: [PermissionMode, PermissionMode][] = [
    ['dontAsk', 'default'],
    ['default', 'acceptEdits'],
    ['default', 'safe-yolo'],
    ['plan', 'read-only'],
    ['plan', 'safe-yolo'],
    ['read-only', 'safe-yolo'],
    ['plan', 'bypassPermissions'],
    ['acceptEdits', 'bypassPermissions'],
  ];
  const NOT_LOWER: [PermissionMode, PermissionMode][] = [
    // plan and read-only allow reads that default and acceptEdits ask for.
    ['plan', 'default'],
    ['read-only', 'default'],
    ['plan', 'acceptEdits'],
    ['plan', 'dontAsk'],
    ['read-only', 'dontAsk'],
    // read-only asks for commands that plan denies.
    ['read-only', 'plan'],
    ['acceptEdits', 'default'],
    ['safe-yolo', 'default'],
    ['dontAsk', 'plan'],
    ['bypassPermissions', 'safe-yolo'],
  ];

  it.each(LOWER)('%s is lower than %s: accepted even with no ceiling', (target, current) => {
    expect(allowsNoMoreThan(target, current)).toBe(true);
    expect(remoteModeChangeAllowed(target, current, null)).toBe(true);
  });
  it.each(NOT_LOWER)('%s is not lower than %s: refused with no ceiling', (target, current) => {
    expect(allowsNoMoreThan(target, current)).toBe(false);
    expect(remoteModeChangeAllowed(target, current, null)).toBe(false);
  });

  it("the host's cell overrides count: a dontAsk that allows reads is not lower than default", () => {
    const modeTable: ModeTableOverrides = { dontAsk: { read: 'allow' } };
    expect(remoteModeChangeAllowed('dontAsk', 'default', null, modeTable)).toBe(false);
    expect(remoteModeChangeAllowed('dontAsk', 'default', null)).toBe(true);
  });

  it('positive control: within the ceiling a remote change goes through', () => {
    expect(remoteModeChangeAllowed('plan', 'default')).toBe(true);
    expect(remoteModeChangeAllowed('acceptEdits', 'default')).toBe(true);
    expect(remoteModeChangeAllowed('bypassPermissions', 'default')).toBe(false);
    expect(remoteModeChangeAllowed('bypassPermissions', 'default', 'bypassPermissions')).toBe(true);
  });
});
