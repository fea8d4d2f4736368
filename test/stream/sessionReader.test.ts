import { firstValueFrom, take, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { SessionReader, SessionWriter, MemoryTransport } from 'happy-session';
import { FlakyTransport } from '../helpers/flakyTransport.js';
import { memorySession } from '../helpers/memorySession.js';

describe('SessionReader', () => {
  it('reads page by page in seq order', async () => {
    const { writer, transport, key } = memorySession();
    const turn = writer.turn();
    for (let i = 0; i < 1234; i++) turn.text(String(i));
    await writer.flush();
    const reader = new SessionReader({ transport, key, pageSize: 100 });
    const events = await reader.readAll();
    expect(events).toHaveLength(1235);
    expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1));
    expect((await reader.readAll({ afterSeq: 1230 })).map((e) => e.seq)).toEqual([
      1231, 1232, 1233, 1234, 1235,
    ]);
  });

  it('events$ catches up, then follows live records, each exactly once and in order, across missed hints', async () => {
    const memory = new MemoryTransport();
    const flaky = new FlakyTransport(memory);
    // Every third live hint is lost, as after a reconnect: the next hint shows the gap.
    flaky.dropHint = (r) => r.seq % 3 === 0 && r.seq < 42;
    const { key } = memorySession();
    const writer = new SessionWriter({ transport: memory, key });
    const turn = writer.turn();
    turn.text('before subscribing');
    await writer.flush();

    const reader = new SessionReader({ transport: flaky, key });
    const received = firstValueFrom(reader.events$().pipe(take(42), toArray()));
    for (let i = 0; i < 40; i++) {
      turn.text(`live ${i}`);
      await writer.flush();
    }
    const events = await received;
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 42 }, (_, i) => i + 1));
    expect(events.every((e) => e.kind === 'message')).toBe(true);
  });

  it('events$ catches up when the transport signals a resync', async () => {
    const memory = new MemoryTransport();
    const flaky = new FlakyTransport(memory);
    flaky.dropHint = () => true;
    const { Subject } = await import('rxjs');
    const resync = new Subject<void>();
    const transport = Object.assign(Object.create(flaky) as FlakyTransport, {
      resync$: resync.asObservable(),
    });
    const { key } = memorySession();
    const writer = new SessionWriter({ transport: memory, key });
    const reader = new SessionReader({ transport, key });
    const received = firstValueFrom(reader.events$().pipe(take(3), toArray()));
    const turn = writer.turn();
    turn.text('a');
    turn.end();
    await writer.flush();
    resync.next();
    expect((await received).map((e) => e.seq)).toEqual([1, 2, 3]);
  });
});
