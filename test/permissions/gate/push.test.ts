import { describe, expect, it } from 'vitest';
import { PermissionGate } from 'happy-session/permissions';
import { MemorySessionState } from 'happy-session/ports';
import { memorySession } from '../../helpers/memorySession.js';
import { until } from '../../helpers/until.js';

describe('permission push notifications', () => {
  it('a request still waiting after pushDelayMs sends one push; one answered sooner sends none', async () => {
    const { writer } = memorySession();
    const state = new MemorySessionState();
    const gate = await PermissionGate.create({
      writer,
      push: state,
      state,
      pushDelayMs: 30,
      sessionTitle: 'Fix login',
    });
    const turn = writer.turn();

    const quick = turn.toolCall({ toolName: 'Bash', args: { command: 'ls' } });
    const quickDecision = quick.requestPermission();
    gate.answer({ callId: quick.callId, optionId: 'allow-once' });
    await quickDecision;

    const slow = turn.toolCall({ toolName: 'Bash', args: { command: 'make' } });
    const slowDecision = slow.requestPermission();
    await until(() => state.pushes.length === 1);
    expect(state.pushes).toEqual([
      {
        kind: 'permission',
        title: 'Permission request',
        body: 'Fix login',
        data: { requestId: slow.callId, tool: 'Bash', type: 'permission_request' },
      },
    ]);
    gate.answer({ callId: slow.callId, optionId: 'deny' });
    await slowDecision;
    await new Promise((r) => setTimeout(r, 60));
    expect(state.pushes).toHaveLength(1);
    turn.end();
    await writer.close();
  });

  it('a burst of requests is mirrored into agentState in a few writes, with every request there', async () => {
    const { writer } = memorySession();
    const state = new MemorySessionState();
    const gate = await PermissionGate.create({ writer, state });
    const turn = writer.turn();
    const calls = Array.from({ length: 50 }, (_, i) =>
      turn.toolCall({ toolName: 'Bash', args: { command: `echo ${i}` } }),
    );
    for (const c of calls) void c.requestPermission();
    await gate.settled();
    expect(Object.keys(state.agentState.requests as object)).toHaveLength(50);
    expect(state.agentStateVersion).toBeLessThan(5);
    turn.end();
    await gate.settled();
    expect(Object.keys(state.agentState.requests as object)).toHaveLength(0);
    expect(
      Object.values(state.agentState.completedRequests as object).every((r) => r.status === 'canceled'),
    ).toBe(true);
    await writer.close();
  });
});
