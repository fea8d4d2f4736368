/**
 * Bounded memory under a slow server, and one report per failure (issue 26): past the outbox's
 * hard bound a content message is not appended and its delivery rejects with
 * `stream.backpressure` (reported once on `errors$`), structure is always admitted, and a
 * producer that awaits `writer.ready()` is never refused. A batch the server refuses is reported
 * once on `errors$`, naming the messages it carried.
 */
import { describe, expect, it } from 'vitest';
import { SdkError, isSdkError, MemoryTransport, SessionReader, SessionWriter } from 'happy-session';
import type { AppendAck, OutgoingRecord } from 'happy-session/ports';
import type { Transport, SessionMessage, OutboxOptions } from 'happy-session';
import { generateDataKey } from 'happy-session/crypto';
import type { RecordKey } from 'happy-session/crypto';
import { FlakyTransport } from '../helpers/flakyTransport.js';
import { expectV2Invariants } from '../helpers/invariants.js';
import { memorySession } from '../helpers/memorySession.js';

/** A server that stores a batch only when the test acknowledges it. */
class SlowServer implements Transport {
  readonly inner = new MemoryTransport();
  readonly records$ = this.inner.records$;
  private readonly waiting: Array<() => void> = [];
  /** Set when the test is done: acknowledge() no longer waits for a batch. */
  closed = false;

  async append(records: readonly OutgoingRecord[]): Promise<readonly AppendAck[]> {
    await new Promise<void>((resolve) => this.waiting.push(resolve));
    return this.inner.append(records);
  }

  read: Transport['read'] = (after, options) => this.inner.read(after, options);

  /** Stores the batch in flight, then lets the microtasks that follow run. */
  async acknowledge(): Promise<void> {
    while (this.waiting.length === 0) {
      if (this.closed) return;
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.waiting.shift()!();
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** A writer on the slow server, and a reader of what it stored. */
function slowSession(server: SlowServer, outbox: OutboxOptions) {
  const key: RecordKey = { variant: 'dataKey', key: generateDataKey() };
  return {
    writer: new SessionWriter({ transport: server, key, outbox }),
    reader: new SessionReader({ transport: server.inner, key }),
  };
}

function outcomesOf(deliveries: readonly Promise<unknown>[]): Promise<PromiseSettledResult<unknown>[]> {
  return Promise.allSettled(deliveries);
}

describe('the outbox bound', () => {
  it('past maxQueued, content is refused with stream.backpressure (once on errors$); structure is admitted; every delivery ends stored or refused', async () => {
    const server = new SlowServer();
    const slow = slowSession(server, { highWaterMark: 10, maxQueued: 50, maxBatch: 10 });
    const errors: SdkError[] = [];
    slow.writer.errors$.subscribe((e) => errors.push(e));
    const appended: SessionMessage[] = [];
    slow.writer.messages$.subscribe((m) => appended.push(m));

    const turn = slow.writer.turn();
    const deliveries: Promise<unknown>[] = [turn.started];
    for (let i = 0; i < 200; i++) deliveries.push(turn.text(`m${i}`));
    const call = turn.toolCall({ toolName: 'Bash', args: { command: 'make' } });
    deliveries.push(call.started, call.end());

    expect(slow.writer.pending).toBe(52);
    const refusedNow = await Promise.allSettled(deliveries.slice(50, 201));
    for (const r of refusedNow) {
      expect(r.status).toBe('rejected');
      const reason = (r as PromiseRejectedResult).reason as SdkError;
      expect(isSdkError(reason, 'stream.backpressure')).toBe(true);
      expect(reason.hint).toContain('await writer.ready()');
    }
    expect(errors.map((e) => e.code)).toEqual(['stream.backpressure']);

    // Room comes back once the queue is under the high-water mark, as ready() would say.
    while (slow.writer.pending >= 10) await server.acknowledge();
    deliveries.push(turn.text('after the drain'), turn.end());
    const done = (async () => {
      while (slow.writer.pending > 0) await server.acknowledge();
    })();
    const outcomes = await outcomesOf(deliveries);
    await done;
    await slow.writer.flush();

    const stored = await slow.reader.messages();
    expectV2Invariants(stored);
    expect(stored.map((m) => m.id)).toEqual(appended.map((m) => m.id));
    const texts = stored.flatMap((m) => (m.type === 'text' ? [m.text] : []));
    // The turn-start and 49 texts filled the 50 places; the call's start and end came in past the bound.
    expect(texts).toEqual([...Array.from({ length: 49 }, (_, i) => `m${i}`), 'after the drain']);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(stored.length);
    expect(stored.filter((m) => m.type === 'tool-call-end')).toHaveLength(1);
    expect(errors.map((e) => e.code)).toEqual(['stream.backpressure']);
  });

  it('past maxQueuedBytes, content is refused the same way', async () => {
    const server = new SlowServer();
    const slow = slowSession(server, { maxQueuedBytes: 64 * 1024 });
    const turn = slow.writer.turn();
    const kb = 'k'.repeat(1024);
    const deliveries = Array.from({ length: 100 }, () => turn.text(kb));
    const outcomes = await Promise.race([
      Promise.allSettled(deliveries.slice(70)),
      new Promise((resolve) => setImmediate(resolve)).then(() => 'pending'),
    ]);
    expect(outcomes).not.toBe('pending');
    for (const o of outcomes as PromiseSettledResult<unknown>[])
      expect(isSdkError((o as PromiseRejectedResult).reason, 'stream.backpressure')).toBe(true);
    expect(slow.writer.pending).toBeLessThan(70);
    expect(slow.writer.pending).toBeGreaterThan(40);
  });

  it('a producer that awaits writer.ready() before each append is never refused', async () => {
    const server = new SlowServer();
    const slow = slowSession(server, { highWaterMark: 10, maxQueued: 20, maxBatch: 10 });
    let stop = false;
    const pump = (async () => {
      while (!stop) await server.acknowledge();
    })();
    const turn = slow.writer.turn();
    const deliveries: Promise<unknown>[] = [];
    for (let i = 0; i < 300; i++) {
      await slow.writer.ready();
      deliveries.push(turn.text(`m${i}`));
    }
    turn.end();
    const outcomes = await Promise.allSettled(deliveries);
    stop = true;
    server.closed = true;
    await pump;
    expect(outcomes.every((o) => o.status === 'fulfilled')).toBe(true);
  });
});

describe('one report per failure', () => {
  it('one 400 on a batch of 21: one errors$ event, naming the 21 messages; every delivery rejects with it', async () => {
    const memory = new MemoryTransport();
    const flaky = new FlakyTransport(memory);
    flaky.rejectNext = new SdkError('transport.rejected', 'Bad request', { details: { status: 400 } });
    const bad = { writer: new SessionWriter({ transport: flaky, key: memorySession().key }) };
    const errors: SdkError[] = [];
    bad.writer.errors$.subscribe((e) => errors.push(e));
    const appended: SessionMessage[] = [];
    bad.writer.messages$.subscribe((m) => appended.push(m));
    const turn = bad.writer.turn();
    const deliveries = [turn.started, ...Array.from({ length: 20 }, (_, i) => turn.text(`t${i}`))];

    const outcomes = await Promise.allSettled(deliveries);

    expect(flaky.batches).toEqual([21]);
    expect(outcomes.every((o) => o.status === 'rejected' && isSdkError(o.reason, 'transport.rejected'))).toBe(
      true,
    );
    expect(errors).toHaveLength(1);
    expect(errors[0]!.code).toBe('transport.rejected');
    expect(errors[0]!.details).toMatchObject({ status: 400, messageIds: appended.map((m) => m.id) });
    // Later appends reject with the same failure; it is not reported again.
    await expect(turn.text('later')).rejects.toBe(errors[0]);
    expect(errors).toHaveLength(1);
  });
});
