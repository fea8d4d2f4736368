import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { Heartbeat } from '../../packages/sdk/src/transport/heartbeat.js';
import { HeartbeatClock } from 'happy-session/internal';
import type { SessionSocket } from '../../packages/sdk/src/transport/sessionSocket.js';

/** The part of a session socket a heartbeat uses, recording what it sends. */
function socketOf(clock: HeartbeatClock, sent: Array<{ sid: string; thinking: boolean }>): SessionSocket {
  return {
    heartbeats: clock,
    emit: (_event: string, payload: { sid: string; thinking: boolean }) =>
      sent.push({ sid: payload.sid, thinking: payload.thinking }),
  } as unknown as SessionSocket;
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('heartbeats on one clock (docs/transport.md, "One socket per account")', () => {
  test('a thousand idle sessions beat every 30 s on one timer; one that works beats every 2 s', () => {
    const clock = new HeartbeatClock();
    const sent: Array<{ sid: string; thinking: boolean }> = [];
    const socket = socketOf(clock, sent);
    const beats = Array.from({ length: 1000 }, (_, i) => new Heartbeat(socket, `s${i}`));
    for (const beat of beats) beat.start();
    expect(sent).toHaveLength(1000);
    expect(vi.getTimerCount()).toBe(1);

    sent.length = 0;
    beats[7]!.setThinking(true);
    expect(sent).toEqual([{ sid: 's7', thinking: true }]);
    vi.advanceTimersByTime(29_000);
    // Only the working session beat meanwhile: once at once, then every 2 s.
    expect(sent.every((b) => b.sid === 's7')).toBe(true);
    expect(sent).toHaveLength(1 + 14);

    sent.length = 0;
    vi.advanceTimersByTime(1_000);
    expect(sent.filter((b) => b.sid !== 's7')).toHaveLength(999);
  });

  test('a stopped heartbeat sends nothing more, and the clock stops with the last one', () => {
    const clock = new HeartbeatClock();
    const sent: Array<{ sid: string; thinking: boolean }> = [];
    const socket = socketOf(clock, sent);
    const a = new Heartbeat(socket, 'a', { intervalMs: 1000, idleIntervalMs: 1000 });
    const b = new Heartbeat(socket, 'b', { intervalMs: 1000, idleIntervalMs: 1000 });
    a.start();
    b.start();
    a.stop();
    sent.length = 0;
    vi.advanceTimersByTime(3_000);
    expect(sent.map((s) => s.sid)).toEqual(['b', 'b', 'b']);
    b.stop();
    expect(vi.getTimerCount()).toBe(0);
  });
});
