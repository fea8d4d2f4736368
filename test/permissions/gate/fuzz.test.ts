import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { PermissionDecision } from 'happy-session';
import { memoryWorld } from './worlds.js';

const ALLOW_IDS = ['allow-once', 'allow-session'];

/** Something sent to the gate by one channel. */
type Sent = { channel: 'rpc' | 'stream' | 'local'; body: unknown };

/** Bodies near the valid ones, for call `c` (an index into the calls), plus arbitrary JSON. */
function payloadArb(
  callCount: number,
  allowAllowed: boolean,
): fc.Arbitrary<{ call: number; channel: Sent['channel']; body: (ids: string[]) => unknown }> {
  const optionIds = allowAllowed
    ? ['deny', 'deny-always', ...ALLOW_IDS, 'allow', '']
    : ['deny', 'deny-always', 'allow', '', 'ALLOW-ONCE'];
  const shape = fc.oneof(
    fc.record({
      kind: fc.constant('v2' as const),
      optionId: fc.oneof(fc.constantFrom(...optionIds), fc.string()),
      extra: fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 2 }),
    }),
    fc.record({
      kind: fc.constant('legacy' as const),
      approved: allowAllowed
        ? fc.oneof(fc.boolean(), fc.jsonValue())
        : fc.oneof(fc.constant(false), fc.constant('true'), fc.constant(1), fc.constant(null)),
      decision: fc.option(fc.constantFrom('approved', 'approved_for_session', 'denied', 'abort', 'maybe')),
      mode: fc.option(fc.constantFrom('default', 'yolo', 'bypassPermissions', 'plan', 'warp')),
      allowTools: fc.option(fc.array(fc.string(), { maxLength: 2 })),
    }),
    fc.record({ kind: fc.constant('junk' as const), value: fc.jsonValue() }),
  );
  return fc
    .record({
      call: fc.nat({ max: callCount - 1 }),
      channel: fc.constantFrom('rpc' as const, 'stream' as const, 'local' as const),
      shapeValue: shape,
    })
    .map(({ call, channel, shapeValue: s }) => ({
      call,
      channel,
      body: (ids: string[]) => {
        const id = ids[call]!;
        if (s.kind === 'v2') return { ...s.extra, callId: id, optionId: s.optionId };
        if (s.kind === 'legacy') {
          // Legacy bodies only exist on the RPC; with approved not `true` none of them is an allow.
          return {
            id,
            approved: s.approved,
            ...(s.decision !== null ? { decision: s.decision } : {}),
            ...(s.mode !== null ? { mode: s.mode } : {}),
            ...(s.allowTools !== null ? { allowTools: s.allowTools } : {}),
          };
        }
        return s.value;
      },
    }));
}

/** True when `body` could be a valid allow for `callId` by any reading (a superset of the valid allows). */
function couldAllow(body: unknown, callId: string): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  if (b.callId === callId && typeof b.optionId === 'string' && ALLOW_IDS.includes(b.optionId)) return true;
  return b.id === callId && b.approved === true;
}

/** True when `body` is an approval that also switches the mode (today's app). */
function couldSwitchMode(body: unknown): boolean {
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  return b.approved === true && typeof b.mode === 'string';
}

async function runFuzz(allowAllowed: boolean): Promise<void> {
  await fc.assert(
    fc.asyncProperty(fc.array(payloadArb(3, allowAllowed), { maxLength: 25 }), async (payloads) => {
      const world = await memoryWorld.create();
      try {
        const turn = world.agent.writer.turn();
        const calls = [0, 1, 2].map((i) =>
          turn.toolCall({ toolName: 'Bash', args: { command: `echo ${i}` } }),
        );
        const decisions: Array<PermissionDecision | undefined> = [undefined, undefined, undefined];
        calls.forEach((c, i) => void c.requestPermission().then((d) => (decisions[i] = d)));
        const ids = calls.map((c) => c.callId);
        const sent: Sent[] = [];
        for (const p of payloads) {
          const body = p.body(ids);
          sent.push({ channel: p.channel, body });
          if (p.channel === 'rpc') {
            const result = await world.rpc(body);
            expect(result).toHaveProperty('status');
          } else if (p.channel === 'local') {
            expect(world.agent.gate.answer(body as never)).toHaveProperty('status');
          } else {
            const b = body as { callId?: unknown; optionId?: unknown };
            // The stream only carries schema-valid messages; anything else never reaches the gate.
            if (
              typeof b === 'object' &&
              b !== null &&
              typeof b.callId === 'string' &&
              b.callId &&
              typeof b.optionId === 'string' &&
              b.optionId
            ) {
              await world.streamAnswer(b.callId, b.optionId);
            }
          }
        }
        await world.messages();
        await new Promise((r) => setTimeout(r, 0));
        calls.forEach((c, i) => {
          const d = decisions[i];
          if (d?.outcome !== 'allow') return;
          if (d.source === 'mode') {
            // A user's approval may carry a mode switch, which re-decides the other pending calls.
            expect(
              sent.some((s) => couldSwitchMode(s.body)),
              `call ${i} allowed by a mode nobody chose`,
            ).toBe(true);
          } else {
            expect(d.source).toBe('user');
            expect(
              sent.some((s) => couldAllow(s.body, c.callId)),
              `call ${i} allowed without an allow`,
            ).toBe(true);
          }
        });
        if (!allowAllowed) expect(decisions.filter((d) => d?.outcome === 'allow')).toEqual([]);
        turn.end();
      } finally {
        await world.close();
      }
    }),
    { numRuns: 60 },
  );
}

describe('gate fuzz (fast-check)', () => {
  it('payloads with no valid allow among them never allow anything, and nothing throws', async () => {
    await runFuzz(false);
  }, 120_000);

  it('a call is allowed only when something that could be a valid allow for it was sent', async () => {
    await runFuzz(true);
  }, 120_000);
});
