import { describe, expect, it } from 'vitest';
import { SdkError, isSdkError, MemoryTransport } from 'happy-session';
import { Outbox } from '../../packages/sdk/src/stream/outbox.js';
import type { AppendAck, AppendOptions, OutgoingRecord } from 'happy-session/ports';
import type { Transport } from 'happy-session';
import { until } from '../helpers/until.js';

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

/**
 * A transport that reports when its request has left the process, as HappyServerTransport does
 * (`reportsSent`); the test decides when each request leaves and when it is answered.
 */
class ReportingTransport {
  readonly reportsSent = true;
  readonly log: string[] = [];
  failNext: SdkError | undefined;
  private readonly inner = new MemoryTransport();
  private readonly sends: Array<() => void> = [];
  private readonly gates: Array<() => void> = [];
  readonly records$ = this.inner.records$;

  async append(
    records: readonly OutgoingRecord[],
    options: AppendOptions = {},
  ): Promise<readonly AppendAck[]> {
    this.log.push(`append ${records.map((r) => r.localId).join(',')}`);
    if (this.failNext) {
      const error = this.failNext;
      this.failNext = undefined;
      throw error;
    }
    this.sends.push(() => {
      this.log.push('sent');
      options.onSent?.();
    });
    await new Promise<void>((resolve) => this.gates.push(resolve));
    return this.inner.append(records);
  }

  read: Transport['read'] = (afterSeq, options) => this.inner.read(afterSeq, options);

  /** The oldest request not sent yet leaves the process. */
  send(): void {
    this.sends.shift()?.();
  }

  /** Answers the oldest waiting request. */
  acknowledge(): void {
    this.gates.shift()?.();
  }

  get waiting(): number {
    return this.gates.length;
  }
}

/** Lets every timer and I/O callback due now run, so that a producer that could wake has woken. */
const aTurnOfTheEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('Outbox: the next batch overlaps the request in flight (docs/performance.md, "Write throughput")', () => {
  it('holds a producer on ready() until the request made has left the process, then lets it go while that request waits for its answer', async () => {
    const transport = new ReportingTransport();
    const outbox = new Outbox(transport, { highWaterMark: 10, sendWaitMs: 60_000 });
    const delivery = outbox.enqueue('a', Promise.resolve('a'));
    await until(() => transport.waiting === 1);
    void outbox.ready().then(() => transport.log.push('ready'));
    await aTurnOfTheEventLoop();
    expect(transport.log).toEqual(['append a']);

    transport.send();
    await until(() => transport.log.includes('ready'));
    expect(transport.log).toEqual(['append a', 'sent', 'ready']);
    expect(transport.waiting).toBe(1);

    transport.acknowledge();
    await expect(delivery).resolves.toMatchObject({ localId: 'a', seq: 1 });
  });

  it('lets a held producer go when the request fails before it left (a refused connection), and retries the batch', async () => {
    const transport = new ReportingTransport();
    transport.failNext = new SdkError('transport.network', 'connect ECONNREFUSED');
    const outbox = new Outbox(transport, { highWaterMark: 10, retryDelayMs: 1, sendWaitMs: 60_000 });
    const delivery = outbox.enqueue('a', Promise.resolve('a'));
    await outbox.ready();
    await until(() => transport.waiting === 1);
    transport.send();
    transport.acknowledge();
    await expect(delivery).resolves.toMatchObject({ seq: 1 });
    expect(transport.log).toEqual(['append a', 'append a', 'sent']);
  });

  it('a request that does not leave (a connection being made, a silent server) holds a producer only sendWaitMs', async () => {
    const transport = new ReportingTransport();
    const outbox = new Outbox(transport, { highWaterMark: 10, sendWaitMs: 5 });
    const delivery = outbox.enqueue('a', Promise.resolve('a'));
    await until(() => transport.waiting === 1);
    await outbox.ready();
    expect(transport.log).toEqual(['append a']);
    expect(transport.waiting).toBe(1);
    transport.send();
    transport.acknowledge();
    await expect(delivery).resolves.toMatchObject({ seq: 1 });
  });

  it('a transport that does not report sending: a producer goes on as soon as the request is made', async () => {
    const transport = new GatedTransport();
    const outbox = new Outbox(transport, { highWaterMark: 10 });
    const delivery = outbox.enqueue('a', Promise.resolve('a'));
    await until(() => transport.waiting === 1);
    await outbox.ready();
    transport.acknowledge();
    await expect(delivery).resolves.toMatchObject({ seq: 1 });
  });
});

/** A transport that fails every append with `error` until `healthy` is set, counting the calls. */
class FailingTransport {
  calls = 0;
  healthy = false;
  private readonly inner = new MemoryTransport();
  readonly records$ = this.inner.records$;
  constructor(private readonly error: () => unknown) {}

  async append(records: readonly OutgoingRecord[]): Promise<readonly AppendAck[]> {
    this.calls++;
    if (!this.healthy) throw this.error();
    return this.inner.append(records);
  }

  read: Transport['read'] = (afterSeq, options) => this.inner.read(afterSeq, options);
}

const serverError = (): SdkError =>
  new SdkError('transport.server_error', 'HTTP 500', { details: { status: 500 } });

describe('Outbox: retries, stalls and bounded waits', () => {
  it('a 429 is waited out (its Retry-After) and retried, not a reason to stop', async () => {
    let first = true;
    const inner = new MemoryTransport();
    const transport: Transport = {
      records$: inner.records$,
      read: (a, o) => inner.read(a, o),
      append: async (records) => {
        if (first) {
          first = false;
          throw new SdkError('transport.rate_limited', 'HTTP 429', {
            details: { status: 429, retryAfterMs: 50 },
          });
        }
        return inner.append(records);
      },
    };
    const outbox = new Outbox(transport, { retryDelayMs: 1 });
    const acks = await Promise.all(['a', 'b'].map((id) => outbox.enqueue(id, Promise.resolve(id))));
    expect(acks.map((a) => a.seq)).toEqual([1, 2]);
    expect(outbox.error).toBeUndefined();
  });

  it('an acknowledgement without a localId rejects that delivery with transport.bad_response; the rest resolve', async () => {
    const inner = new MemoryTransport();
    const transport: Transport = {
      records$: inner.records$,
      read: (a, o) => inner.read(a, o),
      append: async (records) => (await inner.append(records)).filter((ack) => ack.localId !== 'b'),
    };
    const outbox = new Outbox(transport);
    const outcomes = await Promise.allSettled(
      ['a', 'b', 'c'].map((id) => outbox.enqueue(id, Promise.resolve(id))),
    );
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(isSdkError((outcomes[1] as PromiseRejectedResult).reason, 'transport.bad_response')).toBe(true);
    await expect(outbox.enqueue('d', Promise.resolve('d'))).resolves.toMatchObject({ seq: 4 });
  });

  it('acknowledgements in another order than the records still settle each record with its own seq', async () => {
    const inner = new MemoryTransport();
    const transport: Transport = {
      records$: inner.records$,
      read: (a, o) => inner.read(a, o),
      append: async (records) => [...(await inner.append(records))].reverse(),
    };
    const outbox = new Outbox(transport);
    const acks = await Promise.all(['a', 'b', 'c'].map((id) => outbox.enqueue(id, Promise.resolve(id))));
    expect(acks.map((ack) => [ack.localId, ack.seq])).toEqual([
      ['a', 1],
      ['b', 2],
      ['c', 3],
    ]);
  });

  it("a message's delivery (enqueueMessage) settles with its id and seq; a failed one is told to onRejected and rejects", async () => {
    const inner = new MemoryTransport();
    const transport: Transport = {
      records$: inner.records$,
      read: (a, o) => inner.read(a, o),
      append: async (records) => (await inner.append(records)).filter((ack) => ack.localId !== 'b'),
    };
    const rejected: Array<[string, string]> = [];
    const outbox = new Outbox(transport, {}, undefined, (error, messageId) =>
      rejected.push([messageId, isSdkError(error) ? error.code : String(error)]),
    );
    const outcomes = await Promise.allSettled(['a', 'b', 'c'].map((id) => outbox.enqueueMessage(id, id, 1)));
    expect(outcomes[0]).toEqual({ status: 'fulfilled', value: { messageId: 'a', seq: 1 } });
    expect(outcomes[1]!.status).toBe('rejected');
    expect(outcomes[2]).toEqual({ status: 'fulfilled', value: { messageId: 'c', seq: 3 } });
    expect(rejected).toEqual([['b', 'transport.bad_response']]);
  });

  it('reports a stall once, with its cause, and again only after a success', async () => {
    const transport = new FailingTransport(serverError);
    const stalls: SdkError[] = [];
    const outbox = new Outbox(transport, { retryDelayMs: 5, maxRetryDelayMs: 10, stallAfterMs: 60 }, (e) =>
      stalls.push(e),
    );
    const first = outbox.enqueue('a', Promise.resolve('a'));
    await until(() => transport.calls >= 15);
    expect(stalls).toHaveLength(1);
    expect(stalls[0]!.code).toBe('stream.delivery_stalled');
    expect(isSdkError(stalls[0]!.cause, 'transport.server_error')).toBe(true);
    transport.healthy = true;
    await first;
    transport.healthy = false;
    const second = outbox.enqueue('b', Promise.resolve('b'));
    await until(() => stalls.length === 2);
    transport.healthy = true;
    await second;
    expect(stalls).toHaveLength(2);
  });

  it('flush({timeoutMs}) rejects with stream.undelivered naming the messages not stored; they are still delivered afterwards', async () => {
    const transport = new FailingTransport(serverError);
    const outbox = new Outbox(transport, { retryDelayMs: 5, maxRetryDelayMs: 10 });
    const deliveries = [
      outbox.enqueue('m1', Promise.resolve('x'), 'm1'),
      outbox.enqueue('m2', Promise.resolve('y'), 'm2'),
      outbox.enqueue('m2:1', Promise.resolve('z'), 'm2'),
    ];
    const error = await outbox.flush({ timeoutMs: 50 }).catch((e: unknown) => e);
    expect(isSdkError(error, 'stream.undelivered')).toBe(true);
    expect((error as SdkError).details?.messageIds).toEqual(['m1', 'm2']);
    transport.healthy = true;
    await Promise.all(deliveries);
    await outbox.flush();
  });

  it('flush({signal}) stops waiting when the signal aborts', async () => {
    const outbox = new Outbox(new FailingTransport(serverError), { retryDelayMs: 5 });
    void outbox.enqueue('m1', Promise.resolve('x')).catch(() => undefined);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 20);
    const error = await outbox.flush({ signal: controller.signal }).catch((e: unknown) => e);
    expect((error as SdkError).details).toMatchObject({ messageIds: ['m1'], reason: 'aborted' });
  });

  it('close({deadlineMs}) past the deadline rejects every delivery not stored and stops retrying', async () => {
    const transport = new FailingTransport(serverError);
    const outbox = new Outbox(transport, { retryDelayMs: 5, maxRetryDelayMs: 10 });
    const deliveries = ['m1', 'm2'].map((id) => outbox.enqueue(id, Promise.resolve(id)));
    const error = await outbox.close({ deadlineMs: 60 }).catch((e: unknown) => e);
    expect((error as SdkError).details?.messageIds).toEqual(['m1', 'm2']);
    for (const outcome of await Promise.allSettled(deliveries)) {
      expect(isSdkError((outcome as PromiseRejectedResult).reason, 'stream.undelivered')).toBe(true);
    }
    const calls = transport.calls;
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(transport.calls).toBe(calls);
    await expect(outbox.enqueue('m3', Promise.resolve('m3'))).rejects.toMatchObject({
      code: 'stream.undelivered',
    });
  });
});
