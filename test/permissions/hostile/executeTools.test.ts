import { beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, type PolicyCall, type ShellParser } from 'happy-session/permissions';
import { judge } from '../helpers.js';

/**
 * Issue 23, class 7 (Bash part): deny rules about Bash apply to every execute-kind tool that
 * carries a command line (docs/permissions-policy.md, "Deny rules see the real command"): Codex's
 * `CodexBash`, an MCP `…run_command`, an ACP call of kind `execute`, with `command`/`cmd`/`argv`
 * as a string or an argv array. Allowing them is unchanged: they ask unless a rule for that tool
 * allows them.
 */

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

const DENY = { deny: ['Bash(rm:*)'] };

const CALLS: Array<[string, PolicyCall]> = [
  ['CodexBash with a command string', { toolName: 'CodexBash', args: { command: 'rm -rf x' } }],
  ['CodexBash with an argv array', { toolName: 'CodexBash', args: { command: ['bash', '-lc', 'rm -rf x'] } }],
  ['CodexBash with argv rm', { toolName: 'CodexBash', args: { command: ['rm', '-rf', 'x'] } }],
  ['CodexBash with /bin/rm', { toolName: 'CodexBash', args: { command: ['/bin/rm', '-rf', 'x'] } }],
  ['shell of kind execute', { toolName: 'shell', kind: 'execute', args: { command: 'sudo rm -rf x' } }],
  [
    'an MCP run_command',
    { toolName: 'mcp__shell__run_command', kind: 'execute', args: { command: 'ls; rm x' } },
  ],
  [
    'an ACP execute call with cmd',
    { toolName: 'terminal', kind: 'execute', args: { cmd: ['sh', '-c', 'rm x'] } },
  ],
  ['an ACP execute call with argv', { toolName: 'Run', kind: 'execute', args: { argv: ['env', 'rm', 'x'] } }],
  ['an element with a quote', { toolName: 'CodexBash', args: { command: ['bash', '-c', "rm 'x'"] } }],
];

describe('deny rules about Bash see every execute-kind tool that carries a command line', () => {
  it.each(CALLS)('%s is denied in bypassPermissions', (_name, c) => {
    expect(judge(shell, { ...DENY, mode: 'bypassPermissions' }, c)).toMatchObject({ verdict: 'deny' });
  });

  it.each(CALLS)('%s is denied in default mode, even with an allow rule for the tool', (_name, c) => {
    expect(judge(shell, { ...DENY, allow: [c.toolName] }, c).verdict).toBe('deny');
  });

  it('a command line that cannot be read (not a string, an array of non-strings) cannot be checked', () => {
    for (const args of [{ command: 42 }, { command: ['ls', 1] }, { cmd: {} }, { command: '' }]) {
      expect(
        judge(shell, { ...DENY, mode: 'bypassPermissions' }, { toolName: 'CodexBash', args }).verdict,
        JSON.stringify(args),
      ).toBe('deny');
      expect(judge(shell, DENY, { toolName: 'CodexBash', args }).verdict, JSON.stringify(args)).toBe('ask');
    }
  });

  it('an unreadable command line that carries a string a deny rule matches is denied outright', () => {
    const call: PolicyCall = { toolName: 'CodexBash', args: { command: ['rm', 1] } };
    expect(judge(shell, DENY, call).verdict).toBe('deny');
  });

  it.each([
    ['CodexBash ls', { toolName: 'CodexBash', args: { command: ['ls', '-la'] } }],
    ['CodexBash git status', { toolName: 'CodexBash', args: { command: 'git status' } }],
    [
      'an MCP run_command echo rm',
      { toolName: 'mcp__shell__run_command', kind: 'execute', args: { command: 'echo rm' } },
    ],
    [
      'an execute tool without a command',
      { toolName: 'mcp__ci__run_tests', kind: 'execute', args: { suite: 'a' } },
    ],
  ] as Array<[string, PolicyCall]>)(
    '%s runs in bypassPermissions under Bash(rm:*) (positive control)',
    (_name, c) => {
      expect(judge(shell, { ...DENY, mode: 'bypassPermissions' }, c).verdict).toBe('allow');
    },
  );

  it('allowing is unchanged: Bash rules never allow another tool, a rule for that tool does', () => {
    const c: PolicyCall = { toolName: 'CodexBash', args: { command: 'git status' } };
    expect(judge(shell, { allow: ['Bash', 'Bash(git status:*)'] }, c).verdict).toBe('ask');
    expect(judge(shell, { allow: ['CodexBash'] }, c).verdict).toBe('allow');
  });
});

/**
 * Issue 35, class 1: an execute tool that carries no `command`/`cmd`/`argv` may still run a string
 * it carries under another key. A deny or ask rule about Bash that such a string matches, read as
 * a command line, decides; a string no rule matches is the tool's data, as before (the positive
 * controls); more strings than can be read make the call undecidable under the rules.
 */
describe('an execute tool without a command key: the strings it carries are matched too', () => {
  const exec = (args: Record<string, unknown>): PolicyCall => ({
    toolName: 'mcp__ci__run',
    kind: 'execute',
    args,
  });
  const HOSTILE: Array<[string, Record<string, unknown>]> = [
    ['a script key', { script: 'rm -rf x' }],
    ['a line with a list', { code: 'ls; rm x' }],
    ['a nested step', { steps: [{ name: 'clean', run: 'rm -rf build' }] }],
    ['an argv array under another key', { args: ['rm', '-rf', 'x'] }],
    ['a wrapper', { script: 'sudo rm -rf /' }],
    ['a shell string', { script: 'bash -c "rm x"' }],
    ['a path to rm', { program: '/bin/rm -f x' }],
    ['beside harmless data', { suite: 'unit', then: 'rm -rf coverage' }],
    ['beside a harmless command line', { command: 'echo hi', script: 'rm -f x' }],
  ];

  it.each(HOSTILE)('%s is denied in bypassPermissions under Bash(rm:*)', (_name, args) => {
    expect(judge(shell, { ...DENY, mode: 'bypassPermissions' }, exec(args))).toMatchObject({
      verdict: 'deny',
      reason: { kind: 'rule', rule: 'Bash(rm:*)' },
    });
  });

  it.each(HOSTILE)('%s is denied in default mode even with an allow rule for the tool', (_name, args) => {
    expect(judge(shell, { ...DENY, allow: ['mcp__ci__run'] }, exec(args)).verdict).toBe('deny');
  });

  it('an ask rule about Bash asks for a string that matches it, and is denied where nobody is asked', () => {
    const call = exec({ step: 'git push origin main' });
    const rules = { ask: ['Bash(git push:*)'], allow: ['mcp__ci__run'] };
    expect(judge(shell, rules, call).verdict).toBe('ask');
    expect(judge(shell, { ...rules, mode: 'dontAsk' }, call).verdict).toBe('deny');
  });

  it('more strings, or deeper, than can be read: undecidable under a deny rule (denied in bypass, asked in default)', () => {
    const many = exec(Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, 'echo hi'])));
    let deep: unknown = 'rm -rf x';
    for (let i = 0; i < 10; i += 1) deep = { next: deep };
    const hidden = exec({ deep });
    for (const call of [many, hidden]) {
      expect(judge(shell, { ...DENY, mode: 'bypassPermissions' }, call).verdict).toBe('deny');
      expect(judge(shell, { ...DENY, allow: ['mcp__ci__run'] }, call).verdict).toBe('ask');
    }
  });

  it.each([
    ['data that reads as another command', { suite: 'a' }],
    ['a sentence naming rm', { message: 'please do not rm anything' }],
    ['echo of the word', { script: 'echo rm' }],
    ['numbers and flags', { retries: 3, verbose: true, tags: ['fast', 'unit'] }],
  ] as Array<[string, Record<string, unknown>]>)(
    '%s runs in bypassPermissions under Bash(rm:*) (positive control)',
    (_name, args) => {
      expect(judge(shell, { ...DENY, mode: 'bypassPermissions' }, exec(args)).verdict).toBe('allow');
      expect(judge(shell, { ...DENY, allow: ['mcp__ci__run'] }, exec(args)).verdict).toBe('allow');
    },
  );

  it('without rules about Bash, nothing changes: the tool asks in default mode unless allowed', () => {
    expect(judge(shell, {}, exec({ script: 'rm -rf x' })).verdict).toBe('ask');
    expect(judge(shell, { allow: ['mcp__ci__run'] }, exec({ script: 'rm -rf x' })).verdict).toBe('allow');
  });
});
