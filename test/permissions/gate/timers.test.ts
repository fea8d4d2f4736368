import { afterEach, describe, expect, it, vi } from 'vitest';
import { PermissionGate } from 'happy-session/permissions';
import { MemoryRpc } from 'happy-session/ports';
import { memorySession } from '../../helpers/memorySession.js';

// Scenario 16 on a fake clock: the gate's own timers, with nothing else scheduling any.
describe('permission timeouts on a fake clock', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  async function gateOnFakeClock() {
    const { writer } = memorySession();
    const rpc = new MemoryRpc();
    const gate = await PermissionGate.create({ writer, rpc });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
    return { writer, gate, rpc };
  }

  it('without timeoutMs a request is still pending after 24 hours, and the gate holds no timer', async () => {
    const { writer, gate } = await gateOnFakeClock();
    const call = writer.turn().toolCall({ toolName: 'Bash', args: { command: 'ls' } });
    let settled = false;
    void call.requestPermission().then(() => (settled = true));
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(24 * 60 * 60 * 1000);
    expect(settled).toBe(false);
    expect(gate.pendingCallIds).toEqual([call.callId]);
  });

  it('timeoutMs 1000 with onTimeout deny resolves deny at 1000 ms, not before; no timer is left', async () => {
    const { writer, gate, rpc } = await gateOnFakeClock();
    const call = writer.turn().toolCall({ toolName: 'Bash', args: { command: 'ls' } });
    let decision: unknown;
    void call.requestPermission({ timeoutMs: 1000, onTimeout: 'deny' }).then((d) => (decision = d));
    expect(vi.getTimerCount()).toBe(1);
    await vi.advanceTimersByTimeAsync(999);
    expect(decision).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(decision).toMatchObject({ outcome: 'deny', source: 'timeout' });
    expect(vi.getTimerCount()).toBe(0);
    expect(gate.pendingCallIds).toEqual([]);
    expect(await rpc.call('permission', { callId: call.callId, optionId: 'allow-once' })).toMatchObject({
      status: 'already_resolved',
    });
  });

  it("an answer before the deadline clears the request's timer", async () => {
    const { writer, gate } = await gateOnFakeClock();
    const call = writer.turn().toolCall({ toolName: 'Bash', args: { command: 'ls' } });
    const decision = call.requestPermission({ timeoutMs: 60_000, onTimeout: 'cancel' });
    expect(vi.getTimerCount()).toBe(1);
    gate.answer({ callId: call.callId, optionId: 'allow-once' });
    expect(await decision).toMatchObject({ outcome: 'allow' });
    expect(vi.getTimerCount()).toBe(0);
  });
});
