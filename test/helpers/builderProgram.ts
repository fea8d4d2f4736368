import fc from 'fast-check';
import type { Scope, ToolCall, Turn, SessionWriter } from 'happy-session';

/**
 * A builder program for property tests: random builder calls, each number picking among what is
 * open at that moment. One interpreter ({@link runBuilderProgram}) for every suite that writes
 * them: the v2 invariants (test/stream/builderProperty.test.ts) and the v1 output
 * (test/protocol/v1/v1Property.test.ts).
 */
export type BuilderOp =
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

export type BuilderOpKind = BuilderOp['op'];

const ARBITRARIES: { readonly [K in BuilderOpKind]: fc.Arbitrary<Extract<BuilderOp, { op: K }>> } = {
  turn: fc.constant({ op: 'turn' as const }),
  text: fc.record({ op: fc.constant('text' as const), pick: fc.nat(), thinking: fc.boolean() }),
  service: fc.record({ op: fc.constant('service' as const), pick: fc.nat() }),
  serviceOutside: fc.constant({ op: 'serviceOutside' as const }),
  user: fc.constant({ op: 'user' as const }),
  call: fc.record({ op: fc.constant('call' as const), pick: fc.nat(), subagent: fc.boolean() }),
  agentScope: fc.record({
    op: fc.constant('agentScope' as const),
    pick: fc.nat(),
    agent: fc.nat({ max: 2 }),
  }),
  permission: fc.record({ op: fc.constant('permission' as const), pick: fc.nat(), answer: fc.boolean() }),
  photo: fc.record({ op: fc.constant('photo' as const), pick: fc.nat() }),
  endCall: fc.record({ op: fc.constant('endCall' as const), pick: fc.nat(), error: fc.boolean() }),
  endTurn: fc.record({
    op: fc.constant('endTurn' as const),
    pick: fc.nat(),
    status: fc.constantFrom('completed' as const, 'failed' as const, 'cancelled' as const),
  }),
  step: fc.record({ op: fc.constant('step' as const), pick: fc.nat(), fail: fc.boolean() }),
};

/** Every kind of op. */
export const BUILDER_OP_KINDS = Object.keys(ARBITRARIES) as BuilderOpKind[];

/** Ops of the given kinds (by default all). */
export function builderOpArb(kinds: readonly BuilderOpKind[] = BUILDER_OP_KINDS): fc.Arbitrary<BuilderOp> {
  return fc.oneof(...kinds.map((kind) => ARBITRARIES[kind] as fc.Arbitrary<BuilderOp>));
}

/** The `n`-th of `items`, wrapping; undefined when there is none. */
export function pick<T>(items: readonly T[], n: number): T | undefined {
  return items.length === 0 ? undefined : items[n % items.length];
}

/** Agent ids that are not cuid2-shaped, so the mapping to v1 `subagent` is exercised. */
const AGENT_IDS = ['agent_sub1', 'Agent-2', 'x'];

/**
 * Runs `ops` against `writer`. Calls left open are abandoned; the caller's `writer.close()` ends
 * what is left.
 */
export async function runBuilderProgram(writer: SessionWriter, ops: readonly BuilderOp[]): Promise<void> {
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
}
