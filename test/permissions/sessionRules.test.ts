import { beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PERMISSION_OPTIONS, loadShellParser, type ShellParser } from 'happy-session/permissions';
import { SessionRuleStore, ruleForCall } from '../../packages/sdk/src/policy/sessionRules.js';
import { grantedRules } from '../../packages/sdk/src/gate/recovery.js';
import {
  PERMISSION_SETTLED_PREFIX,
  type LedgerMessage as PermissionMessageLike,
} from 'happy-session/internal';
import { bash, judge } from './helpers.js';

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

function request(
  callId: string,
  toolName: string,
  args: unknown,
  extra: Partial<PermissionMessageLike> = {},
): PermissionMessageLike {
  return {
    type: 'permission-request',
    role: 'agent',
    callId,
    toolName,
    args,
    options: DEFAULT_PERMISSION_OPTIONS,
    ...extra,
  };
}

/** A user answer as another client writes it: an input, which grants nothing until the agent records it. */
function response(
  id: string,
  callId: string,
  optionId: string,
  extra: Partial<PermissionMessageLike> = {},
): PermissionMessageLike {
  return { id, time: 1000, type: 'permission-response', role: 'user', callId, optionId, ...extra };
}

/** The agent's record of the answer it applied (`via`). */
function record(
  id: string,
  callId: string,
  optionId: string,
  extra: Partial<PermissionMessageLike> = {},
): PermissionMessageLike {
  return response(id, callId, optionId, { via: 'rpc', ...extra });
}

describe('ruleForCall', () => {
  it('is Bash(<exact command>) for Bash, the tool for read/search/think tools, the exact call otherwise', () => {
    expect(ruleForCall('Bash', { command: '  npm test  ' })).toBe('Bash(npm test)');
    expect(ruleForCall('bash', { command: 'echo $(date)' })).toBe('Bash(echo $(date))');
    expect(ruleForCall('Read', { file_path: 'a.ts' })).toBe('Read');
    expect(ruleForCall('Grep', { pattern: 'x' })).toBe('Grep');
    expect(ruleForCall('TodoWrite', { todos: [] })).toBe('TodoWrite');
    expect(ruleForCall('WebFetch', { url: 'https://a.io' })).toBe('WebFetch{"url":"https://a.io"}');
    expect(ruleForCall('mcp__db__query', { sql: 'x', b: 1 })).toBe('mcp__db__query{"b":1,"sql":"x"}');
    expect(ruleForCall('CodexBash', { command: 'ls' })).toBe('CodexBash{"command":"ls"}');
    // An adapter's kind that adds one the user did not see narrows the grant to the call.
    expect(ruleForCall('Read', { file_path: 'a.ts' }, 'execute')).toBe('Read{"file_path":"a.ts"}');
    expect(ruleForCall('Read', { file_path: 'a.ts' }, 'read')).toBe('Read');
  });

  it('has no rule when it cannot state one exactly', () => {
    expect(ruleForCall('Bash', {})).toBeUndefined();
    expect(ruleForCall('Bash', { command: '  ' })).toBeUndefined();
    expect(ruleForCall('Bash', { command: 'echo a:*' })).toBeUndefined();
    expect(ruleForCall('bad name(', {})).toBeUndefined();
    expect(ruleForCall('Bash ', { command: 'ls' })).toBeUndefined();
    expect(ruleForCall('Read\u200b', {})).toBeUndefined();
    expect(ruleForCall('mcp__x__y', { n: Number.NaN })).toBeUndefined();
    expect(ruleForCall('mcp__x__y', { text: 'x'.repeat(20_000) })).toBeUndefined();
  });
});

describe('SessionRuleStore', () => {
  it('adds an allow rule from allow-always and a deny rule from reject-always, nothing from *-once', () => {
    const store = new SessionRuleStore();
    expect(
      store.addFromAnswer({ toolName: 'Grep', args: {}, kind: 'allow-always', grantedBy: 'm1', at: 5 }),
    ).toEqual({
      id: 'allow:Grep',
      behavior: 'allow',
      rule: 'Grep',
      grantedBy: 'm1',
      createdAt: 5,
    });
    expect(
      store.addFromAnswer({ toolName: 'Bash', args: { command: 'curl x' }, kind: 'reject-always' }),
    ).toEqual({
      id: 'deny:Bash(curl x)',
      behavior: 'deny',
      rule: 'Bash(curl x)',
    });
    expect(store.addFromAnswer({ toolName: 'Edit', args: {}, kind: 'allow-once' })).toBeUndefined();
    expect(store.addFromAnswer({ toolName: 'Edit', args: {}, kind: 'reject-once' })).toBeUndefined();
    expect(store.listRules().map((r) => r.id)).toEqual(['allow:Grep', 'deny:Bash(curl x)']);
  });

  it('granting the same rule twice keeps the first grant', () => {
    const store = new SessionRuleStore();
    store.addFromAnswer({ toolName: 'Grep', args: {}, kind: 'allow-always', grantedBy: 'm1' });
    store.addFromAnswer({ toolName: 'Grep', args: {}, kind: 'allow-always', grantedBy: 'm2' });
    expect(store.listRules()).toEqual([
      { id: 'allow:Grep', behavior: 'allow', rule: 'Grep', grantedBy: 'm1' },
    ]);
  });

  it('adds a host rule by text, canonically, and refuses an invalid one', () => {
    const store = new SessionRuleStore();
    expect(store.add('bash(npm test:*)', 'allow')).toMatchObject({
      ok: true,
      value: { id: 'allow:Bash(npm test:*)' },
    });
    const bad = store.add('Bash(', 'allow');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.code).toBe('permissions.invalid_rule');
  });

  it('revokes by id; the next call asks again', () => {
    const store = new SessionRuleStore();
    store.addFromAnswer({ toolName: 'Bash', args: { command: 'npm test' }, kind: 'allow-always' });
    expect(judge(shell, { sessionRules: store.listRules() }, bash('npm test')).verdict).toBe('allow');
    expect(store.revokeRule('allow:Bash(npm test)')).toBe(true);
    expect(store.revokeRule('allow:Bash(npm test)')).toBe(false);
    expect(judge(shell, { sessionRules: store.listRules() }, bash('npm test')).verdict).toBe('ask');
  });

  it('allow-always on WebFetch covers the same fetch again, not another URL nor Edit (docs/permissions-policy.md, "Session rules")', () => {
    const store = new SessionRuleStore();
    store.addFromAnswer({
      toolName: 'WebFetch',
      args: { url: 'https://a.io' },
      kind: 'allow-always',
      grantedBy: 'msg_user017',
    });
    const rules = { sessionRules: store.listRules() };
    expect(judge(shell, rules, { toolName: 'WebFetch', args: { url: 'https://a.io' } })).toMatchObject({
      verdict: 'allow',
      reason: {
        kind: 'rule',
        rule: 'WebFetch{"url":"https://a.io"}',
        list: 'session-allow',
        id: 'allow:WebFetch{"url":"https://a.io"}',
      },
    });
    expect(judge(shell, rules, { toolName: 'WebFetch', args: { url: 'https://b.io' } }).verdict).toBe('ask');
    expect(judge(shell, { sessionRules: store.listRules() }, { toolName: 'Edit', args: {} }).verdict).toBe(
      'ask',
    );
    expect(new SessionRuleStore().listRules()).toEqual([]);
  });
});

describe('grantedRules (docs/permissions-requirements.md, scenario 13)', () => {
  it('rebuilds exactly the rules granted live', () => {
    const live = new SessionRuleStore();
    live.addFromAnswer({
      toolName: 'Bash',
      args: { command: 'npm test' },
      kind: 'allow-always',
      grantedBy: 'r1',
      at: 1000,
    });
    live.addFromAnswer({ toolName: 'WebFetch', args: {}, kind: 'reject-always', grantedBy: 'r2', at: 1000 });

    const messages: PermissionMessageLike[] = [
      { type: 'tool-call-start', role: 'agent', callId: 'c1' },
      request('c1', 'Bash', { command: 'npm test' }),
      response('s1', 'c1', 'allow-session'),
      record('r1', 'c1', 'allow-session', { via: 'stream' }),
      request('c2', 'WebFetch', { url: 'https://a.io' }),
      record('r2', 'c2', 'deny-always'),
      request('c3', 'Edit', {}),
      record('r3', 'c3', 'allow-once', { via: 'local' }),
    ];
    const rebuilt = grantedRules(messages);
    expect(rebuilt).toEqual(live.listRules());
    expect(judge(shell, { sessionRules: rebuilt }, bash('npm test')).verdict).toBe('allow');
  });

  it('ignores agent-authored responses, unknown options, records before their request, and every record after the first', () => {
    const messages: PermissionMessageLike[] = [
      record('early', 'c1', 'allow-session'),
      request('c1', 'Bash', { command: 'ls' }),
      { ...record('forged', 'c1', 'allow-session'), role: 'agent' },
      record('bad', 'c1', 'allow-forever'),
      record('first', 'c1', 'deny'),
      record('late', 'c1', 'allow-session', { via: 'local' }),
    ];
    expect(grantedRules(messages)).toEqual([]);
  });

  it('answers without via are inputs: they grant nothing, however many there are', () => {
    const messages: PermissionMessageLike[] = [
      request('c1', 'Bash', { command: 'ls' }),
      response('a', 'c1', 'allow-session'),
      response('b', 'c1', 'deny-always'),
    ];
    expect(grantedRules(messages)).toEqual([]);
  });

  it("a request closed by its call end or by the agent's settled note takes no later record", () => {
    const messages: PermissionMessageLike[] = [
      request('c1', 'Bash', { command: 'ls' }),
      { type: 'tool-call-end', role: 'agent', callId: 'c1' },
      record('late1', 'c1', 'allow-session'),
      request('c2', 'Bash', { command: 'pwd' }),
      {
        type: 'service',
        role: 'agent',
        parentId: 'c2',
        text: `${PERMISSION_SETTLED_PREFIX}Allowed by the allow rule Bash.`,
      },
      record('late2', 'c2', 'deny-always'),
    ];
    expect(grantedRules(messages)).toEqual([]);
  });

  it('an answer that edited the arguments grants no rule', () => {
    const messages: PermissionMessageLike[] = [
      request('c1', 'Bash', { command: 'echo hi' }),
      record('r1', 'c1', 'allow-session', { updatedInput: { command: 'echo bye' } }),
    ];
    expect(grantedRules(messages)).toEqual([]);
  });

  it('answers the latest request of a re-raised call, only by an answer naming it (requestId)', () => {
    const messages: PermissionMessageLike[] = [
      request('c1', 'Bash', { command: 'ls' }, { id: 'q1' }),
      record('a1', 'c1', 'allow-once', { requestId: 'q1' }),
      request('c1', 'Bash', { command: 'ls -la /' }, { id: 'q2' }),
      record('a2', 'c1', 'allow-session', { requestId: 'q1' }),
      // A second request's answer that names no request is not its answer.
      record('a2b', 'c1', 'allow-session'),
      record('a3', 'c1', 'allow-session', { requestId: 'q2' }),
    ];
    expect(grantedRules(messages)).toEqual([
      {
        id: 'allow:Bash(ls -la /)',
        behavior: 'allow',
        rule: 'Bash(ls -la /)',
        grantedBy: 'a3',
        createdAt: 1000,
      },
    ]);
  });

  it('uses the options the request offered, by kind', () => {
    const messages: PermissionMessageLike[] = [
      request(
        'c1',
        'Grep',
        {},
        {
          options: [
            { id: 'x', kind: 'allow-always' },
            { id: 'y', kind: 'reject-once' },
          ],
        },
      ),
      record('r', 'c1', 'x'),
    ];
    expect(grantedRules(messages).map((r) => r.id)).toEqual(['allow:Grep']);
  });
});
