import { describe, expect, it } from 'vitest';
import { Outbox } from '../../packages/sdk/src/stream/outbox.js';
import type { AppendAck, OutgoingRecord, Transport } from '../../packages/sdk/src/ports/transport.js';
import { MemoryTransport } from '../../packages/sdk/src/ports/memoryTransport.js';

/** A transport whose appends wait until the test acknowledges them, logging each call. */
class GatedTransport {
  readonly log: string[] = [];
  private readonly inner = new MemoryTransport();
  private readonly gates: Array<() => void> = [];
  readonly records$ = this.inner.records$;

  async append(records: readonly OutgoingRecord[]): Promise<readonly AppendAck[]> {
    this.log.push(`append ${records.map((r) => r.localId).join(',')}`);
    await new Promise<void>((resolve) => this.gates.push(resolve));
    return this.inner.append(records);
  }

  read: Transport['read'] = (afterSeq, options) => this.inner.read(afterSeq, options);

  /** Lets the oldest waiting append through. */
  acknowledge(): void {
    this.gates.shift()?.();
  }

  get waiting(): number {
    return this.gates.length;
  }
}

async function until(condition: () => boolean): Promise<void> {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 1));
}

describe('Outbox', () => {
  it('starts the next batch before it wakes a producer waiting on ready()', async () => {
    const transport = new GatedTransport();
    const outbox = new Outbox(transport, { maxBatch: 2, highWaterMark: 3 });
    const deliveries = ['a', 'b', 'c', 'd'].map((id) => outbox.enqueue(id, Promise.resolve(id)));
    await until(() => transport.waiting === 1);
    void outbox.ready().then(() => transport.log.push('ready'));

    transport.acknowledge();
    await until(() => transport.log.length === 3);
    transport.acknowledge();
    await Promise.all(deliveries);

    expect(transport.log).toEqual(['append a,b', 'append c,d', 'ready']);
  });

  it('keeps append order and acknowledges every record with its seq', async () => {
    const transport = new GatedTransport();
    const outbox = new Outbox(transport, { maxBatch: 2, highWaterMark: 2 });
    const deliveries = ['a', 'b', 'c', 'd', 'e'].map((id) => outbox.enqueue(id, Promise.resolve(id)));
    for (let i = 0; i < 3; i++) {
      await until(() => transport.waiting === 1);
      transport.acknowledge();
    }
    const acks = await Promise.all(deliveries);
    expect(acks.map((a) => [a.localId, a.seq])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
      ['d', 4],
      ['e', 5],
    ]);
    expect(transport.log).toEqual(['append a,b', 'append c,d', 'append e']);
  });
});
