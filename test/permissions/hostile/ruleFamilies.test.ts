import { beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, type PolicyCall, type ShellParser } from 'happy-session/permissions';
import { judge } from '../helpers.js';

/**
 * Issue 35, a red-team set on what a deny rule names: a deny (or ask) rule about one file-editing
 * tool stops every file-editing tool (`Edit(/etc/**)` a MultiEdit or a NotebookEdit of a file under
 * `/etc`), as each edits the file its path names; a `WebFetch(domain:…)` rule sees the host written
 * with its trailing dot (`evil.com.` is the same host). Allow rules stay per tool (positive controls).
 */

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

const BYPASS = { mode: 'bypassPermissions' as const, workspaceRoot: '/home/u/project' };

describe('a deny rule about one file-editing tool stops them all', () => {
  const calls: Array<[string, PolicyCall]> = [
    ['Write', { toolName: 'Write', args: { file_path: '/etc/hosts', content: 'x' } }],
    ['Edit', { toolName: 'Edit', args: { file_path: '/etc/hosts', old_string: 'a', new_string: 'b' } }],
    [
      'MultiEdit',
      {
        toolName: 'MultiEdit',
        args: { file_path: '/etc/hosts', edits: [{ old_string: 'a', new_string: 'b' }] },
      },
    ],
    ['NotebookEdit', { toolName: 'NotebookEdit', args: { notebook_path: '/etc/x.ipynb', new_source: 'x' } }],
  ];
  for (const rule of ['Edit(/etc/**)', 'Write(/etc/**)', 'MultiEdit(/etc/**)', 'NotebookEdit(/etc/**)']) {
    it.each(calls)(`%s of a file under /etc is denied under ${rule} in bypassPermissions`, (_name, call) => {
      expect(judge(shell, { deny: [rule], ...BYPASS }, call)).toMatchObject({ verdict: 'deny' });
    });
  }

  it('an ask rule about Edit asks for a MultiEdit of a file it names', () => {
    const call: PolicyCall = {
      toolName: 'MultiEdit',
      args: { file_path: '/etc/hosts', edits: [{ old_string: 'a', new_string: 'b' }] },
    };
    expect(judge(shell, { ask: ['Edit(/etc/**)'], ...BYPASS }, call).verdict).toBe('ask');
  });

  it('positive controls: a file elsewhere is edited; an allow rule covers its own tool only', () => {
    const multi: PolicyCall = {
      toolName: 'MultiEdit',
      args: { file_path: '/home/u/project/a.ts', edits: [{ old_string: 'a', new_string: 'b' }] },
    };
    expect(judge(shell, { deny: ['Edit(/etc/**)'], ...BYPASS }, multi).verdict).toBe('allow');
    const write: PolicyCall = {
      toolName: 'Write',
      args: { file_path: '/home/u/project/a.ts', content: 'x' },
    };
    const allowEdit = { allow: ['Edit(/home/u/project/**)'], workspaceRoot: '/home/u/project' };
    expect(judge(shell, allowEdit, write).verdict).toBe('ask');
    expect(
      judge(shell, { allow: ['Write(/home/u/project/**)'], workspaceRoot: '/home/u/project' }, write).verdict,
    ).toBe('allow');
  });
});

describe('a domain rule sees the host however its end is written', () => {
  const fetch = (url: string): PolicyCall => ({ toolName: 'WebFetch', args: { url, prompt: 'x' } });
  it.each(['https://evil.com./x', 'https://EVIL.com../x', 'http://evil.com.:8080/'])(
    '%s is denied under WebFetch(domain:evil.com) in bypassPermissions',
    (url) => {
      expect(judge(shell, { deny: ['WebFetch(domain:evil.com)'], ...BYPASS }, fetch(url)).verdict).toBe(
        'deny',
      );
    },
  );

  it('positive controls: another host is fetched, and an allow rule covers the dotted form of its host', () => {
    expect(
      judge(shell, { deny: ['WebFetch(domain:evil.com)'], ...BYPASS }, fetch('https://notevil.com/x'))
        .verdict,
    ).toBe('allow');
    expect(
      judge(shell, { allow: ['WebFetch(domain:docs.example.com)'] }, fetch('https://docs.example.com./a'))
        .verdict,
    ).toBe('allow');
  });
});
