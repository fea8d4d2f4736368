import fc from 'fast-check';
import { Subject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { generateDataKey } from 'happy-session/crypto';
import type { RecordKey } from 'happy-session/crypto';
import { PermissionGate } from 'happy-session/permissions';
import { GateRecords } from '../../../packages/sdk/src/gate/gateRecords.js';
import type { StreamInput } from 'happy-session/permissions';
import { MemoryTransport, SessionReader, SessionWriter } from 'happy-session';
import type { SessionMessage, PermissionDecision, ToolCall } from 'happy-session';
import { ledgerOf } from 'happy-session/internal';
import { memoryWorld } from '../gate/worlds.js';

/**
 * One arbitration for live and replay (docs/permissions.md, "One arbitration"): for random
 * interleavings of requests, answers on every channel (RPC v2 and legacy, the local program, the
 * stream), records forged by another client that claim `via`, answers appended before their
 * request, revocations, cancellations and mode picks, the rules a new gate rebuilds from the
 * stream equal the live gate's rules, and the stream's decision for each request is the one the
 * live gate took. Only the agent's sealed records decide (docs/permissions.md, "The agent's own
 * records"): records another client forges, whatever their `via`, are a person's answers.
 */

const TOOLS: Array<{ toolName: string; args: Record<string, unknown> }> = [
  { toolName: 'Bash', args: { command: 'npm test' } },
  { toolName: 'Bash', args: { command: 'rm -rf build' } },
  { toolName: 'Bash', args: { command: 'ls' } },
  { toolName: 'WebFetch', args: { url: 'https://a.io' } },
];
const OPTIONS = ['allow-once', 'allow-session', 'deny', 'deny-always', 'bogus'];
const VIAS = ['rpc', 'local', 'stream'] as const;
type Via = (typeof VIAS)[number];

type Op =
  | { kind: 'request'; tool: number; early?: { option: number; via?: Via } }
  | { kind: 'answer'; target: number; channel: 'rpc' | 'legacy' | 'local' | 'stream'; option: number }
  | { kind: 'forge'; target: number; option: number; via: Via; edits: boolean }
  | { kind: 'revoke'; index: number }
  | { kind: 'cancel'; target: number }
  | { kind: 'pick'; mode: 'default' | 'acceptEdits' | 'plan' | 'bypassPermissions' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('request' as const),
      tool: fc.nat({ max: TOOLS.length - 1 }),
      early: fc.option(
        fc.record({
          option: fc.nat({ max: OPTIONS.length - 1 }),
          via: fc.option(fc.constantFrom(...VIAS), { nil: undefined }),
        }),
        { nil: undefined, freq: 4 },
      ),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('answer' as const),
      target: fc.nat(),
      channel: fc.constantFrom('rpc' as const, 'legacy' as const, 'local' as const, 'stream' as const),
      option: fc.nat({ max: OPTIONS.length - 1 }),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('forge' as const),
      target: fc.nat(),
      option: fc.nat({ max: OPTIONS.length - 1 }),
      via: fc.constantFrom(...VIAS),
      edits: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('revoke' as const), index: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), target: fc.nat() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('pick' as const),
      mode: fc.constantFrom(
        'default' as const,
        'acceptEdits' as const,
        'plan' as const,
        'bypassPermissions' as const,
      ),
    }),
  },
);

/** The legacy body today's app sends for an option (reject-always has none: a plain refusal). */
function legacyBody(id: string, optionId: string): Record<string, unknown> {
  switch (optionId) {
    case 'allow-once':
      return { id, approved: true };
    case 'allow-session':
      return { id, approved: true, decision: 'approved_for_session' };
    case 'deny':
      return { id, approved: false, decision: 'denied' };
    default:
      return { id, approved: false, decision: 'abort' };
  }
}

describe('replay equals live', () => {
  it("for random interleavings, the rules rebuilt from the stream are the live rules, and each decision is the stream's", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 14 }), async (ops) => {
        const world = await memoryWorld.create({ ceiling: 'acceptEdits' });
        try {
          const turn = world.agent.writer.turn();
          const calls: Array<{ call: ToolCall; decision?: PermissionDecision; abort: AbortController }> = [];
          for (const op of ops) {
            const target = calls.length > 0 && 'target' in op ? calls[op.target % calls.length]! : undefined;
            if (op.kind === 'request') {
              const tool = TOOLS[op.tool]!;
              const call = turn.toolCall({ toolName: tool.toolName, args: tool.args });
              const entry: (typeof calls)[number] = { call, abort: new AbortController() };
              calls.push(entry);
              let release: (() => void) | undefined;
              if (op.early) {
                // Stored before the request, read by the gate only once the request waits.
                await world.agent.writer.flush();
                release = world.holdStream();
                await world.streamAnswer(
                  call.callId,
                  OPTIONS[op.early.option]!,
                  op.early.via ? { via: op.early.via } : {},
                );
              }
              void call.requestPermission({ signal: entry.abort.signal }).then((d) => (entry.decision = d));
              release?.();
            } else if (op.kind === 'answer' && target) {
              const optionId = OPTIONS[op.option]!;
              const callId = target.call.callId;
              if (op.channel === 'rpc') await world.rpc({ callId, optionId });
              else if (op.channel === 'legacy') await world.rpc(legacyBody(callId, optionId));
              else if (op.channel === 'local') world.agent.gate.answer({ callId, optionId });
              else await world.streamAnswer(callId, optionId);
            } else if (op.kind === 'forge' && target) {
              await world.streamAnswer(target.call.callId, OPTIONS[op.option]!, {
                via: op.via,
                ...(op.edits ? { updatedInput: { command: 'rm -rf /' } } : {}),
              });
            } else if (op.kind === 'revoke') {
              const rules = world.agent.gate.listRules();
              if (rules.length > 0) world.agent.gate.revokeRule(rules[op.index % rules.length]!.id);
            } else if (op.kind === 'cancel' && target) {
              target.abort.abort();
            } else if (op.kind === 'pick') {
              world.agent.gate.handleModePick(op.mode);
            }
            await world.drain();
          }
          const live = world.agent.gate.listRules();
          for (const c of calls) if (!c.call.ended) c.call.end();
          turn.end();
          const messages = await world.messages();

          // Each request's decision in the stream (as the agent's sealed records say) is the one
          // the live gate took.
          const records = new GateRecords(world.recordKey);
          const ledger = ledgerOf(messages, { trusted: (m) => records.trusts(m) });
          for (const c of calls) {
            const entry = ledger.latest(c.call.callId);
            const d = c.decision;
            if (!entry || !d) continue;
            if (d.source === 'user' && d.optionId !== undefined) {
              expect(
                entry.answer?.type === 'permission-response' && entry.answer.optionId,
                c.call.callId,
              ).toBe(d.optionId);
            } else {
              expect(entry.answer, `${c.call.callId} decided by ${d.source}`).toBeUndefined();
            }
          }

          const restarted = await world.restart();
          expect(restarted.gate.listRules()).toEqual(live);
        } finally {
          await world.close();
        }
      }),
      { numRuns: 60 },
    );
  }, 240_000);
});

describe('two writers racing for the stream', () => {
  it("a record another client stored before the agent's own changes nothing: the agent's sealed record is the decision, live and after a restart", async () => {
    const transport = new MemoryTransport();
    const key: RecordKey = { variant: 'dataKey', key: generateDataKey() };
    const recordKey = globalThis.crypto.getRandomValues(new Uint8Array(32));
    const writer = new SessionWriter({ transport, key });
    const other = new SessionWriter({ transport, key });
    // The stream channel is held back by hand, so the other client's record reaches the gate late.
    const incoming = new Subject<StreamInput>();
    const gate = await PermissionGate.create({ writer, incoming, recordKey });
    const turn = writer.turn();
    const call = turn.toolCall({ toolName: 'WebFetch', args: { url: 'https://a.io' } });
    const decision = call.requestPermission();
    await writer.flush();

    const forged = other.appendMessage({
      role: 'user',
      type: 'permission-response',
      callId: call.callId,
      optionId: 'allow-session',
      via: 'rpc',
    });
    const { seq } = await forged.delivery;
    // The local answer wins live; the agent's record of it lands after the other client's.
    expect(gate.answer({ callId: call.callId, optionId: 'deny-always' })).toMatchObject({
      status: 'applied',
    });
    expect(await decision).toMatchObject({ outcome: 'deny' });
    expect(gate.listRules().map((r) => r.id)).toEqual(['deny:WebFetch']);
    await writer.flush();

    expect(await gate.handleStreamInput({ message: forged.message as SessionMessage, seq })).toMatchObject({
      status: 'already_resolved',
    });
    expect(gate.listRules().map((r) => r.id)).toEqual(['deny:WebFetch']);
    turn.end();
    await writer.flush();

    const history = await new SessionReader({ transport, key }).messages();
    const replay = await PermissionGate.create({
      writer: new SessionWriter({ transport, key }),
      history,
      recordKey,
    });
    expect(replay.listRules()).toEqual(gate.listRules());
    // A gate with another key (another machine, or a forger) trusts none of these records.
    const stranger = await PermissionGate.create({ writer: new SessionWriter({ transport, key }), history });
    expect(stranger.listRules()).toEqual([]);
    gate.dispose();
    replay.dispose();
    stranger.dispose();
  });
});
