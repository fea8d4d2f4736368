import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { SessionMessage, ToolCall, Turn } from 'happy-session';
import { isSdkError } from 'happy-session';
import { PermissionGate, loadShellParser } from 'happy-session/permissions';
import { builderOpArb, pick, runBuilderProgram } from '../helpers/builderProgram.js';
import type { BuilderOp } from '../helpers/builderProgram.js';
import { expectV2Invariants } from '../helpers/invariants.js';
import { memorySession } from '../helpers/memorySession.js';

const shell = await loadShellParser();

/** The builder calls this suite's first property writes (no user, service, photo or permission records). */
const opArb = builderOpArb(['turn', 'text', 'call', 'endCall', 'endTurn', 'step']);

/** Runs the ops against a writer; calls left open are abandoned, and close() ends what is left. */
async function run(ops: readonly BuilderOp[]): Promise<SessionMessage[]> {
  const { writer, reader } = memorySession();
  await runBuilderProgram(writer, ops);
  await writer.close();
  return reader.messages();
}

describe('builder invariants (fast-check)', () => {
  it('every start has exactly one end, parentIds name earlier starts of the same turn, time never decreases', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(opArb, { maxLength: 60 }), async (ops) => {
        const messages = await run(ops);
        const starts = new Map<string, SessionMessage>();
        const ends = new Map<string, number>();
        const turnStarts = new Set<string>();
        const turnEnds = new Map<string, number>();
        let lastTime = -Infinity;
        for (const m of messages) {
          expect(m.time).toBeGreaterThanOrEqual(lastTime);
          lastTime = m.time;
          if (m.parentId !== undefined) {
            const parent = starts.get(m.parentId);
            expect(parent, `parentId ${m.parentId} names an earlier tool-call-start`).toBeDefined();
            expect(parent!.turn).toBe(m.turn);
            expect(ends.has(m.parentId), 'nothing is written inside a call after it ended').toBe(false);
          }
          if (m.type === 'turn-start') turnStarts.add(m.turn);
          if (m.type === 'turn-end') turnEnds.set(m.turn, (turnEnds.get(m.turn) ?? 0) + 1);
          if (m.type === 'tool-call-start') starts.set(m.callId, m);
          if (m.type === 'tool-call-end') {
            expect(starts.has(m.callId)).toBe(true);
            ends.set(m.callId, (ends.get(m.callId) ?? 0) + 1);
          }
        }
        for (const callId of starts.keys()) expect(ends.get(callId)).toBe(1);
        for (const turn of turnStarts) expect(turnEnds.get(turn)).toBe(1);
      }),
      { numRuns: 150 },
    );
  });

  it('any sequence of builder calls, some with values JSON cannot carry: each call throws synchronously or its messages are stored, and the stored stream holds the v2 invariants', async () => {
    const nonJson = fc.constantFrom<unknown>(
      10n,
      Number.NaN,
      Infinity,
      () => 1,
      Symbol('s'),
      [undefined],
      new Set([1]),
      'cycle',
    );
    const json = fc.jsonValue();
    const valueArb = fc.oneof(json, nonJson);
    const stepArb = fc.oneof(
      fc.record({ op: fc.constant('turn' as const) }),
      fc.record({ op: fc.constant('call' as const), pick: fc.nat(), value: valueArb }),
      fc.record({ op: fc.constant('text' as const), pick: fc.nat() }),
      fc.record({ op: fc.constant('request' as const), pick: fc.nat() }),
      fc.record({ op: fc.constant('endCall' as const), pick: fc.nat() }),
      fc.record({ op: fc.constant('endTurn' as const), pick: fc.nat() }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { maxLength: 40 }), async (steps) => {
        const { writer, reader } = memorySession();
        const gate = await PermissionGate.create({ writer, shell });
        const emitted: SessionMessage[] = [];
        writer.messages$.subscribe((m) => emitted.push(m));
        const turns: Turn[] = [];
        const calls: ToolCall[] = [];
        const runs: Promise<unknown>[] = [];
        for (const step of steps) {
          const openTurns = turns.filter((t) => !t.ended);
          const openCalls = calls.filter((c) => !c.ended && !turns.find((t) => t.id === c.turnId)?.ended);
          const before = emitted.length;
          try {
            switch (step.op) {
              case 'turn':
                turns.push(writer.turn());
                break;
              case 'call': {
                const scope = pick(openTurns, step.pick);
                if (!scope) break;
                const value = step.value === 'cycle' ? cyclic() : step.value;
                calls.push(scope.toolCall({ toolName: 'Bash', args: { value } }));
                break;
              }
              case 'text':
                pick(openTurns, step.pick)?.text('x');
                break;
              case 'request': {
                const call = pick(openCalls, step.pick);
                if (call) runs.push(call.run(() => 'ran').catch(() => undefined));
                break;
              }
              case 'endCall':
                pick(openCalls, step.pick)?.end();
                break;
              case 'endTurn':
                pick(openTurns, step.pick)?.end();
                break;
            }
          } catch (error) {
            // A refusal is synchronous, typed, and appends nothing.
            expect(isSdkError(error, 'stream.invalid_message')).toBe(true);
            expect(step.op).toBe('call');
            expect(emitted.length).toBe(before);
          }
        }
        await writer.close();
        await Promise.all(runs);
        gate.dispose();
        const stored = await reader.messages();
        expect(stored).toEqual(emitted);
        expectV2Invariants(stored);
      }),
      { numRuns: 100 },
    );
  });
});

function cyclic(): Record<string, unknown> {
  const value: Record<string, unknown> = {};
  value.self = value;
  return value;
}
