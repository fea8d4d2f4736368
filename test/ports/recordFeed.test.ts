import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { MemoryTransport } from 'happy-session';
import { recordFeed } from 'happy-session/internal';
import { FlakyTransport } from '../helpers/flakyTransport.js';

describe('record feed tail checks (docs/transport.md, "Live reading")', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  test('after an idle spell has stretched the checks, a record taken brings the next one back to tailCheckMs', async () => {
    const inner = new MemoryTransport();
    const transport = new FlakyTransport(inner);
    transport.dropHint = (record) => record.seq === 2;
    const taken: number[] = [];
    const feed = recordFeed(transport, { tailCheckMs: 100, maxTailCheckMs: 60_000 }).subscribe((r) =>
      taken.push(r.seq),
    );
    // Idle: checks at 100, 300, 700, 1500 ms; the next one is set for 3100 ms.
    await vi.advanceTimersByTimeAsync(2000);
    await inner.append([{ localId: 'a', content: 'one' }]);
    await vi.advanceTimersByTimeAsync(0);
    expect(taken).toEqual([1]);
    // Its hint lost, record 2 is read by the check one tailCheckMs after record 1.
    await inner.append([{ localId: 'b', content: 'two' }]);
    await vi.advanceTimersByTimeAsync(99);
    expect(taken).toEqual([1]);
    await vi.advanceTimersByTimeAsync(2);
    expect(taken).toEqual([1, 2]);
    feed.unsubscribe();
  });

  test('records in quick succession each push the next check back to tailCheckMs after the last', async () => {
    const inner = new MemoryTransport();
    const transport = new FlakyTransport(inner);
    transport.dropHint = (record) => record.seq === 4;
    const taken: number[] = [];
    const feed = recordFeed(transport, { tailCheckMs: 100 }).subscribe((r) => taken.push(r.seq));
    await vi.advanceTimersByTimeAsync(0);
    // Records at 0, 60 and 120 ms (less than tailCheckMs apart), then record 4, its hint lost.
    for (const localId of ['a', 'b']) {
      await inner.append([{ localId, content: localId }]);
      await vi.advanceTimersByTimeAsync(60);
    }
    await inner.append([{ localId: 'c', content: 'c' }]);
    await inner.append([{ localId: 'd', content: 'd' }]);
    // Record 3 was taken at 120 ms: the check that reads record 4 comes at 220 ms, not before.
    await vi.advanceTimersByTimeAsync(99);
    expect(taken).toEqual([1, 2, 3]);
    await vi.advanceTimersByTimeAsync(2);
    expect(taken).toEqual([1, 2, 3, 4]);
    feed.unsubscribe();
  });
});
