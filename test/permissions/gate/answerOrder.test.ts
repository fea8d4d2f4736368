import { afterEach, describe, expect, it } from 'vitest';
import type { SessionMessage } from 'happy-session';
import type { GateWorld } from './worlds.js';
import { worlds } from './worlds.js';

/**
 * The one ordering rule of an answer (docs/permissions.md, "What follows an answer"; docs/architecture.md,
 * "One arbiter"): the decision is recorded, then the waiter released; the tool's code runs when the
 * answer's step is over, never inside it. So on every channel a tool starts only after its
 * decision's record is appended, and the record comes before anything the tool writes.
 */
type Channel = 'stream' | 'rpc' | 'legacy rpc' | 'local';

/** The agent's record of the answer that decided `callId`: its response with `via`, or its note confirming the person's own. */
function isDecisionRecord(m: SessionMessage, callId: string): boolean {
  if (m.type === 'permission-response') return m.callId === callId && m.via !== undefined;
  return m.type === 'service' && m.parentId === callId && m.text.startsWith('Permission answer applied: ');
}

describe.each(worlds)('a tool starts only after its decision is recorded, over $name', (factory) => {
  let world: GateWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  for (const channel of ['stream', 'rpc', 'legacy rpc', 'local'] as const satisfies readonly Channel[]) {
    it(`answered by ${channel}: when the record is appended the tool has not started, and it starts once after it`, async () => {
      world = await factory.create();
      const turn = world.agent.writer.turn();
      const call = turn.toolCall({ toolName: 'Bash', args: { command: 'make deploy' } });
      const appended: SessionMessage[] = [];
      let startedAtRecord: boolean | undefined;
      let starts = 0;
      let appendedAtStart: SessionMessage[] = [];
      world.agent.writer.messages$.subscribe((m) => {
        appended.push(m);
        if (isDecisionRecord(m, call.callId)) startedAtRecord = starts > 0;
      });
      const running = call.run(() => {
        starts++;
        appendedAtStart = [...appended];
        call.scope().text('deploying');
      });
      await world.requested(call.callId);
      const request = (await world.messages()).find((m) => m.type === 'permission-request')!;

      if (channel === 'local') {
        const result = world.agent.gate.answer({ callId: call.callId, optionId: 'allow-once' });
        // The answer's step is over when answer() returns: recorded, and the tool not started yet.
        expect(result).toMatchObject({ status: 'applied' });
        expect(starts).toBe(0);
      } else if (channel === 'rpc') {
        await world.rpc({ callId: call.callId, optionId: 'allow-once', requestId: request.id });
      } else if (channel === 'legacy rpc') {
        await world.rpc({ id: request.id, approved: true });
      } else {
        await world.streamAnswer(call.callId, 'allow-once', { requestId: request.id });
      }

      expect(await running).toMatchObject({ status: 'done', decision: { outcome: 'allow' } });
      expect(starts).toBe(1);
      expect(startedAtRecord).toBe(false);
      const recordAt = appendedAtStart.findIndex((m) => isDecisionRecord(m, call.callId));
      expect(recordAt).toBeGreaterThanOrEqual(0);
      turn.end();
      await world.drain();
      // In the stored stream, the record precedes what the tool wrote.
      const stored = await world.messages();
      const record = stored.findIndex((m) => isDecisionRecord(m, call.callId));
      const text = stored.findIndex((m) => m.type === 'text' && m.text === 'deploying');
      expect(record).toBeGreaterThanOrEqual(0);
      expect(text).toBeGreaterThan(record);
    });
  }

  it('a denial releases the waiter with the decision, and the tool never starts', async () => {
    world = await factory.create();
    const turn = world.agent.writer.turn();
    const call = turn.toolCall({ toolName: 'Bash', args: { command: 'make deploy' } });
    let starts = 0;
    const running = call.run(() => void starts++);
    await world.requested(call.callId);
    expect(world.agent.gate.answer({ callId: call.callId, optionId: 'deny' })).toMatchObject({
      status: 'applied',
      decision: { outcome: 'deny' },
    });
    expect(await running).toMatchObject({ status: 'denied' });
    expect(starts).toBe(0);
    turn.end();
  });
});
