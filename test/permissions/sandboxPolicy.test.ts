import { beforeAll, describe, expect, it } from 'vitest';
import {
  compileRules,
  evaluatePolicy,
  loadShellParser,
  type PermissionMode,
  type PolicyCall,
  type PolicyResult,
  type RuleLists,
  type SandboxPolicy,
  type ShellParser,
} from 'happy-session/permissions';
import { decisionFromPolicy } from '../../packages/sdk/src/gate/decision.js';

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

const ROOT = '/work/project';
const ON: SandboxPolicy = { available: true };

function judge(
  call: PolicyCall,
  setup: RuleLists & { mode?: PermissionMode; sandbox?: SandboxPolicy } = {},
): PolicyResult {
  const rules = compileRules(setup);
  if (!rules.ok) throw rules.error;
  return evaluatePolicy(
    {
      mode: setup.mode ?? 'default',
      rules: rules.value,
      shell,
      workspaceRoot: ROOT,
      ...(setup.sandbox ? { sandbox: setup.sandbox } : {}),
    },
    call,
  );
}

const bash = (command: string, extra: Record<string, unknown> = {}): PolicyCall => ({
  toolName: 'Bash',
  kind: 'execute',
  args: { command, ...extra },
});

describe('a Bash call that will run in the sandbox (docs/sandbox.md, "The policy and the sandbox")', () => {
  it.each(['git status', 'npm test', 'ls -la', 'echo $(id) > out.txt', 'time { touch ../x; }'])(
    'runs %j without asking, and the decision says it ran sandboxed',
    (command) => {
      const result = judge(bash(command), { sandbox: ON });
      expect(result).toMatchObject({ verdict: 'allow', reason: { kind: 'sandbox', leaving: false } });
      expect(decisionFromPolicy(result)).toEqual({
        outcome: 'allow',
        source: 'sandbox',
        message:
          'Allowed to run sandboxed: writes only inside the workspace, no network beyond the allowed hosts.',
      });
    },
  );

  it.each(['default', 'acceptEdits', 'safe-yolo'] as const)('is allowed in %s', (mode) => {
    expect(judge(bash('make'), { mode, sandbox: ON }).verdict).toBe('allow');
  });

  it.each([
    ['plan', 'deny'],
    ['read-only', 'ask'],
    ['dontAsk', 'deny'],
  ] as const)('keeps the cell of %s, a mode that forbids writing or asking', (mode, verdict) => {
    expect(judge(bash('make'), { mode, sandbox: ON }).verdict).toBe(verdict);
  });

  it('still obeys deny rules, and a deny rule it cannot check asks', () => {
    expect(judge(bash('rm -rf build'), { sandbox: ON, deny: ['Bash(rm:*)'] })).toMatchObject({
      verdict: 'deny',
      reason: { kind: 'rule', rule: 'Bash(rm:*)' },
    });
  });

  it.each(["rm$'\\0x' -f F", 'time { rm -f F; }', 'git status -- ${_@P}', '! { rm -f F; }', 'echo $(id)'])(
    'never runs %j unasked while deny rules are in force: a line it may misread must not slip past them',
    (command) => {
      // Asked, or denied outright where the deny rule is seen through the misreading.
      expect(['ask', 'deny']).toContain(judge(bash(command), { sandbox: ON, deny: ['Bash(rm:*)'] }).verdict);
    },
  );

  it.each(['npm test', 'make', './scripts/build.sh', 'jobs -x rm -f F', 'stdbuf -o0 rm -f F'])(
    'denies %j beside a deny rule: it may run code the rule cannot be checked on, and nobody would be asked',
    (command) => {
      expect(judge(bash(command), { sandbox: ON, deny: ['Bash(rm:*)'] })).toMatchObject({
        verdict: 'deny',
        reason: { kind: 'undecidable', rules: [{ rule: 'Bash(rm:*)' }] },
      });
    },
  );

  it.each(['git status', 'ls -la', 'git log --oneline | head -5'])(
    'still runs %j unasked beside deny rules (positive control)',
    (command) => {
      expect(
        judge(bash(command), { sandbox: ON, deny: ['Bash(rm:*)'], ask: ['Bash(git push:*)'] }),
      ).toMatchObject({
        verdict: 'allow',
        reason: { kind: 'sandbox' },
      });
    },
  );

  it('still obeys ask rules', () => {
    expect(judge(bash('git push'), { sandbox: ON, ask: ['Bash(git push:*)'] })).toMatchObject({
      verdict: 'ask',
      reason: { kind: 'rule', rule: 'Bash(git push:*)' },
    });
  });

  it.each([true, 'yes', 1])(
    'asks when the call asks to leave the sandbox (dangerouslyDisableSandbox: %j)',
    (v) => {
      const result = judge(bash('git status', { dangerouslyDisableSandbox: v }), {
        sandbox: ON,
        allow: ['Bash(git status)'],
      });
      expect(result).toMatchObject({ verdict: 'ask', reason: { kind: 'sandbox', leaving: true } });
    },
  );

  it('asks as without a sandbox when the sandbox is unavailable: never runs unsandboxed', () => {
    const result = judge(bash('git status'), { sandbox: { available: false } });
    expect(result).toMatchObject({ verdict: 'ask', reason: { kind: 'default' } });
    expect(judge(bash('git status'), {}).verdict).toBe('ask');
  });

  it('leaves other tools alone: an execute tool the sandbox does not run still asks', () => {
    const call: PolicyCall = { toolName: 'mcp__shell__run', kind: 'execute', args: { command: 'ls' } };
    expect(judge(call, { sandbox: ON }).verdict).toBe('ask');
    expect(
      judge({ toolName: 'WebFetch', kind: 'fetch', args: { url: 'https://x' } }, { sandbox: ON }).verdict,
    ).toBe('ask');
    expect(judge(call, { sandbox: { available: true, tools: ['mcp__shell__run'] } }).verdict).toBe('allow');
  });

  it('asks for a Bash call without a command string', () => {
    expect(judge({ toolName: 'Bash', args: { command: ['ls'] } }, { sandbox: ON }).verdict).toBe('ask');
  });
});

describe('safe-yolo with a sandbox means what Happy means by it', () => {
  const edit = (file_path: string): PolicyCall => ({ toolName: 'Edit', kind: 'edit', args: { file_path } });

  it('allows edits inside the workspace, and still asks for protected paths and outside', () => {
    expect(judge(edit(`${ROOT}/src/a.ts`), { mode: 'safe-yolo', sandbox: ON }).verdict).toBe('allow');
    expect(judge(edit(`${ROOT}/.git/config`), { mode: 'safe-yolo', sandbox: ON })).toMatchObject({
      verdict: 'ask',
      reason: { kind: 'confinement', concern: 'protected_path' },
    });
    expect(judge(edit('/etc/passwd'), { mode: 'safe-yolo', sandbox: ON }).verdict).toBe('ask');
  });

  it('without a sandbox keeps asking for edits', () => {
    expect(judge(edit(`${ROOT}/src/a.ts`), { mode: 'safe-yolo' }).verdict).toBe('ask');
    expect(
      judge(edit(`${ROOT}/src/a.ts`), { mode: 'safe-yolo', sandbox: { available: false } }).verdict,
    ).toBe('ask');
  });
});
