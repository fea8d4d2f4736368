import { beforeAll, describe, expect, it } from 'vitest';
import {
  compileRules,
  describePolicyResult,
  loadShellParser,
  type ShellParser,
} from 'happy-session/permissions';
import { decisionFromPolicy } from '../../packages/sdk/src/gate/decision.js';
import { bash, judge } from './helpers.js';

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

describe('Bash prefix rules and compound commands (docs/permissions-requirements.md, scenario 4)', () => {
  const allow = ['Bash(npm test:*)'];

  it.each(['npm test', 'npm test -- --watch'])('Bash(npm test:*) allows %j', (command) => {
    expect(judge(shell, { allow }, bash(command))).toMatchObject({
      verdict: 'allow',
      reason: { kind: 'rule', rule: 'Bash(npm test:*)', list: 'allow' },
    });
  });

  it.each([
    ['npm testx', undefined],
    ['npm test && rm -rf ~', { kind: 'outside_grammar', reason: expect.stringContaining('`~`') }],
    ['npm test; curl x | sh', undefined],
    ['npm test `id`', { kind: 'hazard', hazards: ['command_substitution'] }],
    ['echo $(npm test)', { kind: 'hazard', hazards: ['command_substitution'] }],
    ['(npm test)', { kind: 'hazard', hazards: ['subshell'] }],
    ['npm test > out.txt', { kind: 'hazard', hazards: ['redirection'] }],
    ['npm test\nrm -rf ~', { kind: 'outside_grammar', reason: expect.stringContaining('`~`') }],
    ['npm test "unterminated', { kind: 'unparsable', reason: 'syntax_error' }],
  ])('Bash(npm test:*) asks for %j', (command, shellConcern) => {
    const result = judge(shell, { allow }, bash(command));
    expect(result.verdict).toBe('ask');
    expect(result.reason).toEqual({ kind: 'default', ...(shellConcern ? { shell: shellConcern } : {}) });
  });

  it('Bash(npm run test:*) matches npm run test and npm run test -- -u but not npm run testx', () => {
    const rules = { allow: ['Bash(npm run test:*)'] };
    expect(judge(shell, rules, bash('npm run test')).verdict).toBe('allow');
    expect(judge(shell, rules, bash('npm run test -- -u')).verdict).toBe('allow');
    expect(judge(shell, rules, bash('npm run test -- -u 2>&1')).verdict).toBe('allow');
    expect(judge(shell, rules, bash('npm run testx')).verdict).toBe('ask');
  });

  it('Bash(git status) is exact', () => {
    const rules = { allow: ['Bash(git status)'] };
    expect(judge(shell, rules, bash('git status')).verdict).toBe('allow');
    expect(judge(shell, rules, bash('  git status  ')).verdict).toBe('allow');
    expect(judge(shell, rules, bash('git status --short')).verdict).toBe('ask');
    expect(judge(shell, rules, bash('git statusx')).verdict).toBe('ask');
  });

  it('allows a compound command only when every part is allowed', () => {
    const both = { allow: ['Bash(cd:*)', 'Bash(npm test:*)'] };
    expect(judge(shell, both, bash('cd app && npm test'))).toMatchObject({
      verdict: 'allow',
      reason: {
        kind: 'rule',
        rule: 'Bash(cd:*)',
        rules: [
          { rule: 'Bash(cd:*)', list: 'allow' },
          { rule: 'Bash(npm test:*)', list: 'allow' },
        ],
      },
    });
    expect(judge(shell, { allow: ['Bash(npm test:*)'] }, bash('cd app && npm test')).verdict).toBe('ask');
    for (const op of [' && ', '; ', ' | ', ' || ', '\n']) {
      expect(judge(shell, both, bash(`cd app${op}npm test`)).verdict).toBe('allow');
    }
    // `&` runs the first command in the background: not in the grammar a line must be in.
    expect(judge(shell, both, bash('cd app & npm test')).verdict).toBe('ask');
  });

  it('denies a compound command when any part matches a deny rule, nested parts included', () => {
    const rules = { allow: ['Bash(npm test:*)', 'Bash(echo:*)'], deny: ['Bash(rm:*)'] };
    for (const command of [
      'npm test && rm -rf ~',
      'npm test; rm x',
      'npm test | rm x',
      'npm test || rm x',
      'npm test\nrm x',
      'echo $(rm -rf x)',
      'echo `rm -rf x`',
      '(cd / && rm -rf x)',
      'npm test > out; rm out',
    ]) {
      expect(judge(shell, rules, bash(command)), command).toMatchObject({
        verdict: 'deny',
        reason: { kind: 'rule', rule: 'Bash(rm:*)', list: 'deny' },
      });
    }
  });

  it('asks for an unparsable command a deny rule might match; where the mode would not ask, denies it', () => {
    const reason = {
      kind: 'undecidable',
      rules: [{ rule: 'Bash(rm:*)', list: 'deny' }],
      shell: { kind: 'unparsable', reason: 'syntax_error' },
    };
    expect(judge(shell, { deny: ['Bash(rm:*)'] }, bash('ls; rm x "'))).toEqual({
      verdict: 'ask',
      reason,
      toolKind: 'execute',
    });
    expect(judge(shell, { deny: ['Bash(rm:*)'], mode: 'bypassPermissions' }, bash('ls; rm x "'))).toEqual({
      verdict: 'deny',
      reason,
      toolKind: 'execute',
    });
  });

  it('denies an unparsable command whose whole text a deny rule matches', () => {
    expect(judge(shell, { deny: ['Bash(rm:*)'] }, bash('rm -rf "x')).verdict).toBe('deny');
  });

  it('an exact rule equal to the whole line allows that very line, compound or not', () => {
    const rules = { allow: ['Bash(npm test && npm run build)', 'Bash(echo $(date))'] };
    expect(judge(shell, rules, bash('npm test && npm run build')).verdict).toBe('allow');
    expect(judge(shell, rules, bash('echo $(date)')).verdict).toBe('allow');
    expect(judge(shell, rules, bash('npm test && npm run build && rm x')).verdict).toBe('ask');
    expect(judge(shell, rules, bash('npm test')).verdict).toBe('ask');
  });

  it('a bare Bash allow rule allows any line of the grammar, and no other line', () => {
    expect(judge(shell, { allow: ['Bash'] }, bash('echo "$HOME" | wc -c > /dev/null')).verdict).toBe('allow');
    expect(judge(shell, { allow: ['Bash'] }, bash('echo $(id) > x')).verdict).toBe('ask');
    expect(judge(shell, { allow: ['Bash'] }, bash('echo "x')).verdict).toBe('ask');
  });

  it('asks when the call has no command string', () => {
    expect(
      judge(shell, { allow: ['Bash(ls:*)'] }, { toolName: 'Bash', args: { command: ['ls'] } }),
    ).toMatchObject({
      verdict: 'ask',
      reason: { kind: 'default', shell: { kind: 'unparsable', reason: 'missing_command' } },
    });
  });

  it('reads the v2 example tool name bash like Bash', () => {
    expect(
      judge(shell, { allow: ['Bash(ls:*)'] }, { toolName: 'bash', args: { command: 'ls -la' } }).verdict,
    ).toBe('allow');
  });
});

describe('precedence: deny > ask > mode > allow (docs/permissions-requirements.md, scenario 5)', () => {
  it('a deny rule wins over an allow rule and over bypassPermissions', () => {
    const setup = { deny: ['Bash(rm:*)'], allow: ['Bash(rm:*)'] };
    expect(judge(shell, setup, bash('rm -rf x')).verdict).toBe('deny');
    expect(judge(shell, { ...setup, mode: 'bypassPermissions' }, bash('rm -rf x'))).toMatchObject({
      verdict: 'deny',
      reason: { kind: 'rule', rule: 'Bash(rm:*)', list: 'deny' },
    });
  });

  it('an ask rule wins over the mode and over allow rules', () => {
    const setup = { ask: ['WebFetch'], allow: ['WebFetch'] };
    expect(judge(shell, setup, { toolName: 'WebFetch', args: { url: 'https://a.io' } }).verdict).toBe('ask');
    expect(
      judge(
        shell,
        { ...setup, mode: 'bypassPermissions' },
        { toolName: 'WebFetch', args: { url: 'https://a.io' } },
      ),
    ).toMatchObject({ verdict: 'ask', reason: { kind: 'rule', rule: 'WebFetch', list: 'ask' } });
  });

  it('a deny rule wins over an ask rule', () => {
    expect(judge(shell, { deny: ['Edit'], ask: ['Edit'] }, { toolName: 'Edit', args: {} }).verdict).toBe(
      'deny',
    );
  });

  it('requires-interaction tools ask even in bypassPermissions, and are denied in dontAsk', () => {
    for (const toolName of ['AskUserQuestion', 'ExitPlanMode', 'exit_plan_mode']) {
      expect(judge(shell, { mode: 'bypassPermissions', allow: [toolName] }, { toolName })).toMatchObject({
        verdict: 'ask',
        reason: { kind: 'interaction' },
      });
      expect(judge(shell, { mode: 'dontAsk' }, { toolName })).toMatchObject({
        verdict: 'deny',
        reason: { kind: 'mode', mode: 'dontAsk' },
      });
    }
    expect(
      judge(
        shell,
        { mode: 'bypassPermissions' },
        { toolName: 'mcp__form__ask', requiresUserInteraction: true },
      ).verdict,
    ).toBe('ask');
  });

  it('a mode that decides wins over allow rules: plan refuses an allowed edit', () => {
    expect(judge(shell, { mode: 'plan', allow: ['Edit'] }, { toolName: 'Edit', args: {} })).toMatchObject({
      verdict: 'deny',
      reason: { kind: 'mode', mode: 'plan' },
    });
  });

  it('bypassPermissions allows without rules, and reports the mode as the reason', () => {
    expect(judge(shell, { mode: 'bypassPermissions' }, bash('curl x | sh'))).toEqual({
      verdict: 'allow',
      reason: { kind: 'mode', mode: 'bypassPermissions' },
      toolKind: 'execute',
    });
  });

  it('allow rules decide where the mode asks', () => {
    expect(judge(shell, { allow: ['WebFetch'] }, { toolName: 'WebFetch', args: {} }).verdict).toBe('allow');
    expect(
      judge(shell, { mode: 'acceptEdits', allow: ['WebFetch'] }, { toolName: 'WebFetch', args: {} }).verdict,
    ).toBe('allow');
  });

  it('dontAsk denies what no rule allows, and allows what one does', () => {
    expect(judge(shell, { mode: 'dontAsk' }, bash('ls'))).toMatchObject({
      verdict: 'deny',
      reason: { kind: 'mode', mode: 'dontAsk' },
    });
    expect(judge(shell, { mode: 'dontAsk', allow: ['Bash(ls:*)'] }, bash('ls -la')).verdict).toBe('allow');
    expect(judge(shell, { mode: 'dontAsk', ask: ['Bash(ls:*)'] }, bash('ls -la')).verdict).toBe('deny');
  });

  it('an unknown tool kind is never auto-allowed in read-only or plan', () => {
    expect(judge(shell, { mode: 'read-only' }, { toolName: 'mcp__db__drop_table' }).verdict).toBe('ask');
    expect(judge(shell, { mode: 'plan' }, { toolName: 'mcp__db__drop_table' }).verdict).toBe('deny');
    expect(judge(shell, { mode: 'read-only' }, { toolName: 'mcp__fs__read', kind: '_weird' }).verdict).toBe(
      'ask',
    );
    expect(judge(shell, { mode: 'read-only' }, { toolName: 'mcp__fs__read', kind: 'read' }).verdict).toBe(
      'allow',
    );
  });

  it('session reject-always rules deny and session allow-always rules allow, with their ids', () => {
    const sessionRules = [
      { id: 'deny:Bash(curl:*)', behavior: 'deny' as const, rule: 'Bash(curl:*)' },
      { id: 'allow:Grep', behavior: 'allow' as const, rule: 'Grep' },
    ];
    expect(judge(shell, { sessionRules, mode: 'bypassPermissions' }, bash('curl x'))).toMatchObject({
      verdict: 'deny',
      reason: { kind: 'rule', rule: 'Bash(curl:*)', list: 'session-deny', id: 'deny:Bash(curl:*)' },
    });
    expect(
      judge(shell, { sessionRules, workspaceRoot: process.cwd() }, { toolName: 'Grep', args: {} }),
    ).toMatchObject({
      verdict: 'allow',
      reason: { kind: 'rule', rule: 'Grep', list: 'session-allow', id: 'allow:Grep' },
    });
  });

  it('a whole-tool session allow rule covers only calls of the kinds the user saw whole (read, search, think)', () => {
    const sessionRules = [
      { id: 'allow:WebFetch', behavior: 'allow' as const, rule: 'WebFetch' },
      { id: 'allow:Grep', behavior: 'allow' as const, rule: 'Grep' },
    ];
    expect(judge(shell, { sessionRules }, { toolName: 'WebFetch', args: {} }).verdict).toBe('ask');
    expect(judge(shell, { sessionRules }, { toolName: 'Grep', kind: 'execute', args: {} }).verdict).toBe(
      'ask',
    );
    // A static allow rule is the host's own choice and still covers the tool.
    expect(judge(shell, { allow: ['WebFetch'] }, { toolName: 'WebFetch', args: {} }).verdict).toBe('allow');
  });

  it('a session deny rule that does not parse makes the policy ask (deny where it would not ask), never ignore it', () => {
    const sessionRules = [{ id: 'x', behavior: 'deny' as const, rule: 'Bash(' }];
    expect(judge(shell, { sessionRules }, bash('ls')).verdict).toBe('ask');
    expect(judge(shell, { sessionRules, mode: 'bypassPermissions' }, bash('ls')).verdict).toBe('deny');
  });
});

describe('path and domain rules in the policy', () => {
  const workspaceRoot = '/work/app';

  it('allows reads under src and asks for others', () => {
    const setup = { allow: ['Read(src/**)'], workspaceRoot };
    expect(judge(shell, setup, { toolName: 'Read', args: { file_path: '/work/app/src/a.ts' } }).verdict).toBe(
      'allow',
    );
    expect(judge(shell, setup, { toolName: 'Read', args: { file_path: '/work/app/.env' } }).verdict).toBe(
      'ask',
    );
  });

  it('asks when a deny path rule cannot be checked, and denies then in bypass, which never asks', () => {
    const setup = { deny: ['Read(.env)'], workspaceRoot, mode: 'bypassPermissions' as const };
    expect(judge(shell, setup, { toolName: 'Read', args: { file_path: '/work/app/x/.env' } }).verdict).toBe(
      'deny',
    );
    expect(judge(shell, setup, { toolName: 'Read', args: { file_path: '../elsewhere/.env' } })).toMatchObject(
      {
        verdict: 'deny',
        reason: { kind: 'undecidable', rules: [{ rule: 'Read(.env)', list: 'deny' }] },
      },
    );
    expect(
      judge(
        shell,
        { ...setup, mode: 'default' },
        { toolName: 'Read', args: { file_path: '../elsewhere/.env' } },
      ),
    ).toMatchObject({ verdict: 'ask', reason: { kind: 'undecidable' } });
    expect(
      judge(shell, setup, { toolName: 'Read', args: { file_path: '/work/app/README.md' } }).verdict,
    ).toBe('allow');
  });

  it('matches WebFetch by domain', () => {
    const setup = { allow: ['WebFetch(domain:docs.rs)'] };
    expect(judge(shell, setup, { toolName: 'WebFetch', args: { url: 'https://docs.rs/x' } }).verdict).toBe(
      'allow',
    );
    expect(
      judge(shell, setup, { toolName: 'WebFetch', args: { url: 'https://evil.io/docs.rs' } }).verdict,
    ).toBe('ask');
  });
});

describe('compileRules', () => {
  it('returns the first invalid rule as a typed error', () => {
    const result = compileRules({ allow: ['Edit', 'Bash()'] });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('permissions.invalid_rule');
      expect(result.error.details).toEqual({ rule: 'Bash()' });
    }
  });
});

describe('decisions from policy results', () => {
  it('a rule denial names the rule and never looks like a user answer', () => {
    const result = judge(shell, { deny: ['Bash(rm:*)'] }, bash('rm -rf /'));
    expect(decisionFromPolicy(result)).toEqual({
      outcome: 'deny',
      source: 'rule',
      rule: 'Bash(rm:*)',
      message: 'Denied by the deny rule Bash(rm:*).',
    });
  });

  it('a mode decision has source mode', () => {
    const result = judge(shell, { mode: 'plan' }, { toolName: 'Edit' });
    expect(decisionFromPolicy(result)).toEqual({
      outcome: 'deny',
      source: 'mode',
      message: 'Denied by permission mode plan.',
    });
  });

  it('an ask is not a decision', () => {
    expect(decisionFromPolicy(judge(shell, {}, bash('ls')))).toBeUndefined();
  });

  it('describes compound allows by every rule used', () => {
    const result = judge(
      shell,
      {
        allow: ['Bash(cd:*)'],
        sessionRules: [{ id: 'allow:Bash(ls)', behavior: 'allow', rule: 'Bash(ls)' }],
      },
      bash('cd a && ls'),
    );
    expect(describePolicyResult(result)).toBe(
      'Allowed by the allow rule Bash(cd:*), session allow rule Bash(ls).',
    );
  });
});
