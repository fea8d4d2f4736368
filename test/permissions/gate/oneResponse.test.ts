import { afterEach, describe, expect, it } from 'vitest';
import type { GateWorld } from './worlds.js';
import { worlds } from './worlds.js';

/**
 * A v2 request has exactly one `permission-response` in the stored stream, whichever channel
 * answers it (docs/permissions.md, "One arbitration"): the person's own record when the stream
 * answers (the gate confirms it with a sealed note), the gate's record when the RPC or the local
 * program does.
 */
describe.each(worlds)('one permission-response per request, over $name', (factory) => {
  let world: GateWorld | undefined;
  afterEach(async () => {
    await world?.close();
    world = undefined;
  });

  for (const channel of ['stream', 'rpc', 'local'] as const) {
    it(`answered by ${channel}: one response stored, and the tool runs once`, async () => {
      world = await factory.create();
      const turn = world.agent.writer.turn();
      const call = turn.toolCall({ toolName: 'Bash', args: { command: 'make deploy' } });
      let runs = 0;
      const running = call.run(() => ++runs);
      await world.requested(call.callId);
      const request = (await world.messages()).find((m) => m.type === 'permission-request')!;
      if (channel === 'stream')
        await world.streamAnswer(call.callId, 'allow-once', { requestId: request.id });
      else if (channel === 'rpc')
        await world.rpc({ callId: call.callId, optionId: 'allow-once', requestId: request.id });
      else world.agent.gate.answer({ callId: call.callId, optionId: 'allow-once' });
      expect(await running).toMatchObject({ status: 'done', decision: { outcome: 'allow', via: channel } });
      turn.end();
      await world.drain();
      const stored = await world.messages();
      const responses = stored.filter((m) => m.type === 'permission-response' && m.callId === call.callId);
      expect(responses).toHaveLength(1);
      expect(responses[0]).toMatchObject({ optionId: 'allow-once', requestId: request.id });
      expect(runs).toBe(1);
    });
  }
});
