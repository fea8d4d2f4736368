import { afterEach, describe, expect, it } from 'vitest';
import type { ToolCall } from '../../../packages/sdk/src/stream/builders.js';
import type { GateWorld, WorldFactory } from './worlds.js';
import { worlds } from './worlds.js';

const REQUESTS = 1000;
const WAVE = 100;

describe.each(worlds.map((w) => [w.name, w] as const))('race over %s', (name, factory: WorldFactory) => {
  let world: GateWorld | undefined;
  // Closing after 1,000 requests drains the agentState mirror and the last pushes against a relay
  // that shares 2 cores with the test; on a busy machine that took over the default 30 s once.
  afterEach(async () => {
    await world?.close();
  }, 120_000);

  it(`${REQUESTS} requests, each answered at once by RPC and by the stream with conflicting decisions`, async () => {
    world = await factory.create();
    const { writer } = world.agent;
    const turn = writer.turn();
    const calls: ToolCall[] = [];
    const ran = new Set<string>();
    const results = [];
    for (let i = 0; i < REQUESTS; i++) {
      const call = turn.toolCall({ toolName: 'Bash', args: { command: `echo ${i}` } });
      calls.push(call);
      results.push(call.run(() => void ran.add(call.callId)));
    }
    await writer.flush();
    const w = world;
    // Even calls: RPC allows, stream denies. Odd calls: RPC denies, stream allows. Both answers
    // of a request go out at the same moment; requests go in waves so that the RPC round trips of
    // one wave stay within the server's call timeout on a small machine.
    const answers: Array<{ status: string }> = [];
    for (let start = 0; start < calls.length; start += WAVE) {
      const wave = await Promise.all(
        calls.slice(start, start + WAVE).map(async (call, j) => {
          const i = start + j;
          const [rpcAnswer] = await Promise.all([
            w.rpc({ callId: call.callId, optionId: i % 2 === 0 ? 'allow-once' : 'deny' }),
            w.streamAnswer(call.callId, i % 2 === 0 ? 'deny' : 'allow-once'),
          ]);
          return rpcAnswer as { status: string };
        }),
      );
      answers.push(...wave);
    }
    const outcomes = await Promise.all(results);
    turn.end();

    const allowed = outcomes.filter((o) => o.decision.outcome === 'allow').length;
    const rpcWins = outcomes.filter((o) => o.decision.via === 'rpc').length;
    const streamWins = outcomes.filter((o) => o.decision.via === 'stream').length;
    const losers = answers.filter((a) => a.status === 'already_resolved').length;
    process.stdout.write(
      `race over ${name}: ${REQUESTS} requests, ${rpcWins} won by RPC, ${streamWins} by the stream, ` +
        `${allowed} allowed, ${ran.size} executor runs, ${losers} RPC answers already_resolved\n`,
    );

    // Each resolves exactly once, by one channel.
    expect(rpcWins + streamWins).toBe(REQUESTS);
    // The RPC loses exactly when the stream won.
    expect(losers).toBe(streamWins);
    expect(answers.filter((a) => a.status === 'applied').length).toBe(rpcWins);
    // The executor ran exactly for the allowed ones.
    outcomes.forEach((o, i) => expect(ran.has(calls[i]!.callId)).toBe(o.decision.outcome === 'allow'));
    expect(ran.size).toBe(allowed);
    // Exactly one permission-response per request was recorded by the runtime (for the RPC winners).
    const messages = await world.messages();
    const recorded = messages.filter((m) => m.type === 'permission-response' && m.via === 'rpc');
    expect(recorded).toHaveLength(rpcWins);
    expect(new Set(recorded.map((m) => m.type === 'permission-response' && m.callId)).size).toBe(rpcWins);
  }, 180_000);
});
