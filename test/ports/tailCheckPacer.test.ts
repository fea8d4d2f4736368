import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { TailCheckPacer } from 'happy-session/internal';

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

describe('idle tail checks share one pace (docs/transport.md, "Live reading")', () => {
  test('a thousand checks due at once run ten a second, earliest due first, on one timer', () => {
    const pacer = new TailCheckPacer(10);
    const fired: number[] = [];
    const now = Date.now();
    for (let i = 999; i >= 0; i--) pacer.schedule(now + 30_000 + i, () => fired.push(i));
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(30_000);
    expect(fired).toEqual([0]);
    vi.advanceTimersByTime(1_000);
    expect(fired).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    vi.advanceTimersByTime(100_000);
    expect(fired).toHaveLength(1000);
    expect(vi.getTimerCount()).toBe(0);
  });

  test('a check runs at its own time when none is ahead of it, and a cancelled one never runs', () => {
    const pacer = new TailCheckPacer(10);
    const fired: string[] = [];
    const now = Date.now();
    const cancel = pacer.schedule(now + 5_000, () => fired.push('cancelled'));
    pacer.schedule(now + 7_000, () => fired.push('kept'));
    cancel();
    vi.advanceTimersByTime(6_999);
    expect(fired).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(fired).toEqual(['kept']);
  });
});
