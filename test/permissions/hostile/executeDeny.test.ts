import { beforeAll, describe, expect, it } from 'vitest';
import {
  loadShellParser,
  type PermissionMode,
  type PolicyCall,
  type ShellParser,
} from 'happy-session/permissions';
import { judge } from '../helpers.js';

/**
 * Deny and ask rules about Bash apply to every tool that may run a command line (issue 23, "Exact
 * identity, exact grants"; class 7: `Bash(rm:*)` never looked at `CodexBash`, `shell` or other
 * execute-kind tools). The line is the call's `command`, or its argv quoted word by word.
 */

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

const rules = { deny: ['Bash(rm:*)', 'Bash(curl:*)'], ask: ['Bash(git push:*)'] };

const hostile: ReadonlyArray<[string, PolicyCall]> = [
  ['CodexBash rm', { toolName: 'CodexBash', args: { command: 'rm -rf build' } }],
  [
    'CodexBash argv through bash -lc',
    { toolName: 'CodexBash', args: { command: ['bash', '-lc', 'rm -rf build'] } },
  ],
  ['CodexBash argv', { toolName: 'CodexBash', args: { command: ['rm', '-rf', 'build'] } }],
  ['an MCP shell with sudo', { toolName: 'mcp__shell__run_command', args: { command: 'sudo rm -rf /' } }],
  [
    'terminal of kind execute, second command',
    { toolName: 'terminal', kind: 'execute', args: { command: 'ls; rm -f F' } },
  ],
  [
    'an ACP call named by its kind',
    { toolName: 'execute', kind: 'execute', args: { command: 'curl x | sh' } },
  ],
  ['an unknown tool without a kind', { toolName: 'shell', args: { command: '/bin/rm x' } }],
  ['Read called execute by its adapter', { toolName: 'Read', kind: 'execute', args: { command: 'rm x' } }],
];

describe('deny rules about Bash judge the command line of every execute-kind tool', () => {
  it.each(hostile)('%s is denied, in default and in bypassPermissions', (_name, call) => {
    for (const mode of ['default', 'bypassPermissions', 'acceptEdits'] as PermissionMode[]) {
      expect(judge(shell, { ...rules, mode }, call), mode).toMatchObject({
        verdict: 'deny',
        reason: { kind: 'rule', list: 'deny' },
      });
    }
  });

  it('an ask rule about Bash asks for a Codex git push, even in bypassPermissions', () => {
    const call = { toolName: 'CodexBash', args: { command: 'git push --force' } };
    expect(judge(shell, { ...rules, mode: 'bypassPermissions' }, call)).toMatchObject({
      verdict: 'ask',
      reason: { kind: 'rule', list: 'ask', rule: 'Bash(git push:*)' },
    });
  });

  it('a command that cannot be read asks, and is denied where nobody would be asked', () => {
    for (const command of [42, { rm: true }, [], ['ls', 1], '']) {
      const call = { toolName: 'CodexBash', args: { command } };
      expect(judge(shell, rules, call).verdict, JSON.stringify(command)).toBe('ask');
      expect(judge(shell, { ...rules, mode: 'bypassPermissions' }, call).verdict).toBe('deny');
    }
  });

  it('positive controls: other commands, tools without a command line, read-only tools', () => {
    const bypass = { ...rules, mode: 'bypassPermissions' as const };
    expect(judge(shell, bypass, { toolName: 'CodexBash', args: { command: 'ls -la' } }).verdict).toBe(
      'allow',
    );
    expect(
      judge(shell, bypass, { toolName: 'CodexBash', args: { command: ['git', 'status'] } }).verdict,
    ).toBe('allow');
    expect(
      judge(shell, bypass, { toolName: 'mcp__github__create_issue', args: { title: 'rm x' } }).verdict,
    ).toBe('allow');
    expect(
      judge(shell, bypass, { toolName: 'Read', args: { file_path: 'a', command: 'rm x' } }).verdict,
    ).toBe('allow');
    expect(
      judge(
        shell,
        { ...rules, allow: ['CodexBash'] },
        { toolName: 'CodexBash', args: { command: 'git status' } },
      ).verdict,
    ).toBe('allow');
    // The argv is quoted word by word: a quote inside a word stays in the word.
    expect(
      judge(shell, bypass, { toolName: 'CodexBash', args: { command: ['echo', "it's rm -rf x"] } }).verdict,
    ).toBe('allow');
  });
});
