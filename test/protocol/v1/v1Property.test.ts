import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionMessage } from '../../../packages/sdk/src/protocol/sessionMessage.js';
import type { Scope, ToolCall, Turn } from '../../../packages/sdk/src/stream/builders.js';
import { READING_ORDERS, appReads } from '../../helpers/happyAppModel.js';
import { expectValidV1Stream, storedRecords, v1MemorySession } from './helpers.js';

/** One builder call; numbers pick among what is open at that moment. */
type Op =
  | { op: 'turn' }
  | { op: 'text'; pick: number; thinking: boolean }
  | { op: 'service'; pick: number }
  | { op: 'serviceOutside' }
  | { op: 'user' }
  | { op: 'call'; pick: number; subagent: boolean }
  | { op: 'agentScope'; pick: number; agent: number }
  | { op: 'permission'; pick: number; answer: boolean }
  | { op: 'photo'; pick: number }
  | { op: 'endCall'; pick: number; error: boolean }
  | { op: 'endTurn'; pick: number; status: 'completed' | 'failed' | 'cancelled' }
  | { op: 'step'; pick: number; fail: boolean };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.constant({ op: 'turn' as const }),
  fc.record({ op: fc.constant('text' as const), pick: fc.nat(), thinking: fc.boolean() }),
  fc.record({ op: fc.constant('service' as const), pick: fc.nat() }),
  fc.constant({ op: 'serviceOutside' as const }),
  fc.constant({ op: 'user' as const }),
  fc.record({ op: fc.constant('call' as const), pick: fc.nat(), subagent: fc.boolean() }),
  fc.record({ op: fc.constant('agentScope' as const), pick: fc.nat(), agent: fc.nat({ max: 2 }) }),
  fc.record({ op: fc.constant('permission' as const), pick: fc.nat(), answer: fc.boolean() }),
  fc.record({ op: fc.constant('photo' as const), pick: fc.nat() }),
  fc.record({ op: fc.constant('endCall' as const), pick: fc.nat(), error: fc.boolean() }),
  fc.record({
    op: fc.constant('endTurn' as const),
    pick: fc.nat(),
    status: fc.constantFrom('completed' as const, 'failed' as const, 'cancelled' as const),
  }),
  fc.record({ op: fc.constant('step' as const), pick: fc.nat(), fail: fc.boolean() }),
);

function pick<T>(items: readonly T[], n: number): T | undefined {
  return items.length === 0 ? undefined : items[n % items.length];
}

/** Agent ids that are not cuid2-shaped, so the mapping to v1 `subagent` is exercised. */
const AGENT_IDS = ['agent_sub1', 'Agent-2', 'x'];

/** Runs the ops against a v1 writer whose clock stands still; close() ends what is left open. */
async function run(ops: readonly Op[]): Promise<{ messages: SessionMessage[]; records: unknown[] }> {
  const { writer, transport, key } = v1MemorySession({ clock: () => 1_000 });
  const messages: SessionMessage[] = [];
  writer.messages$.subscribe((m) => messages.push(m));
  const turns: Turn[] = [];
  const calls: ToolCall[] = [];
  const extraScopes: Scope[] = [];
  const open = (c: ToolCall) => !c.ended && !turns.find((t) => t.id === c.turnId)?.ended;
  const scopes = (): Scope[] => [
    ...turns.filter((t) => !t.ended),
    ...calls.filter(open).map((c) => c.scope()),
    ...extraScopes.filter((s) => s.owner !== undefined && open(s.owner)),
  ];
  for (const o of ops) {
    switch (o.op) {
      case 'turn':
        turns.push(writer.turn());
        break;
      case 'text':
        pick(scopes(), o.pick)?.text('x', { thinking: o.thinking });
        break;
      case 'service':
        pick(scopes(), o.pick)?.service('status');
        break;
      case 'serviceOutside':
        writer.service('between turns');
        break;
      case 'user':
        writer.append({ role: 'user', type: 'text', text: 'hello' });
        break;
      case 'call': {
        const scope = pick(scopes(), o.pick);
        if (scope)
          calls.push(scope.toolCall({ toolName: 't', ...(o.subagent ? { agentTitle: 'sub' } : {}) }));
        break;
      }
      case 'agentScope': {
        const call = pick(calls.filter(open), o.pick);
        if (call) extraScopes.push(call.scope({ agentId: AGENT_IDS[o.agent]! }));
        break;
      }
      case 'permission': {
        const call = pick(calls.filter(open), o.pick);
        if (!call) break;
        writer.append({
          role: 'agent',
          type: 'permission-request',
          turn: call.turnId,
          callId: call.callId,
          toolName: call.toolName,
          title: call.title,
          options: [{ id: 'ok', label: 'Allow', kind: 'allow-once' }],
        });
        if (o.answer)
          writer.append({ role: 'user', type: 'permission-response', callId: call.callId, optionId: 'ok' });
        break;
      }
      case 'photo': {
        const scope = pick(scopes(), o.pick);
        if (!scope) break;
        writer.append({
          role: 'agent',
          type: 'photo',
          turn: scope.turnId,
          ...(scope.parentId !== undefined ? { parentId: scope.parentId } : {}),
          ...(scope.agentId !== undefined ? { agentId: scope.agentId } : {}),
          ref: 'sessions/S/attachments/p.enc',
          thumbhash: 'abc',
          width: 4,
          height: 3,
        });
        break;
      }
      case 'endCall':
        pick(calls.filter(open), o.pick)?.end(o.error ? { error: 'e' } : {});
        break;
      case 'endTurn':
        pick(
          turns.filter((t) => !t.ended),
          o.pick,
        )?.end(o.status);
        break;
      case 'step': {
        const scope = pick(scopes(), o.pick);
        if (scope) {
          await scope
            .step('s', async (inner) => {
              inner.text('in step');
              if (o.fail) throw new Error('step failed');
            })
            .catch(() => undefined);
        }
        break;
      }
    }
  }
  await writer.close();
  const stored = await storedRecords(transport, key);
  return { messages, records: stored.map((s) => s.record) };
}

describe('v1 output of random builder sequences (fast-check)', () => {
  it('is schema-valid, time strictly increases, and every v2 message but permissions is one record', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 60 }), async (ops) => {
        const { messages, records } = await run(ops);
        const v1 = expectValidV1Stream(records);
        const recordIds = v1.map((r) =>
          r.role === 'session' ? r.content.id : r.content.type === 'event' ? r.content.id : r.content.data.id,
        );
        for (const m of messages) {
          const expected = m.type === 'permission-request' || m.type === 'permission-response' ? 0 : 1;
          expect(
            recordIds.filter((id) => id === m.id),
            `${m.type} ${m.id}`,
          ).toHaveLength(expected);
        }
        const failed = messages.filter((m) => m.type === 'tool-call-end' && m.error !== undefined);
        const results = v1.filter((r) => r.role === 'agent' && r.content.type === 'acp');
        expect(results).toHaveLength(failed.length);
      }),
      { numRuns: 150 },
    );
  });

  it("shows in today's app, in every reading order, each call once with its error as its result", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 60 }), async (ops) => {
        const { messages, records } = await run(ops);
        const stored = records.map((record, i) => ({ record, seq: i + 1 }));
        const ends = new Map(
          messages.flatMap((m) => (m.type === 'tool-call-end' ? [[m.callId, m.error]] : [])),
        );
        const callIds = messages.flatMap((m) => (m.type === 'tool-call-start' ? [m.callId] : []));
        for (const order of READING_ORDERS) {
          const screen = appReads(stored, {}, order);
          expect(screen.dropped).toBe(0);
          expect(
            screen.tools
              .filter((t) => t.name !== 'file')
              .map((t) => t.id)
              .sort(),
          ).toEqual([...callIds].sort());
          for (const tool of screen.tools) {
            if (tool.name === 'file') continue;
            const error = ends.get(tool.id);
            expect(tool.result).toEqual(
              error === undefined ? { output: null, isError: false } : { output: error, isError: true },
            );
          }
        }
      }),
      { numRuns: 100 },
    );
  });
});
