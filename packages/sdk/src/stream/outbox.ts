import { SdkError, isSdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { RetryPolicy } from '../ports/retryPolicy.js';
import { pause, within } from '../ports/waits.js';
import type { AppendAck, OutgoingRecord, Transport } from '../ports/transport.js';
import { backpressure, batchFailure, deliveryStalled, missingAck, undelivered } from './deliveryErrors.js';
import type { Delivered } from './types.js';

/** Tuning of the {@link Outbox}. */
export interface OutboxOptions {
  /** Records per append call; the server takes at most 100 (docs/wire.md §5.2). */
  readonly maxBatch?: number;
  /** Queued records above which {@link Outbox.ready} waits: the backpressure point. Default 1,000. */
  readonly highWaterMark?: number;
  /**
   * The hard bound, in records queued or in flight: past it (or past `maxQueuedBytes`) content
   * messages are refused with `stream.backpressure` until the queue is back under `highWaterMark`
   * (docs/transport.md, "Backpressure"). Default {@link DEFAULT_MAX_QUEUED}.
   */
  readonly maxQueued?: number;
  /** The hard bound in bytes of records queued or in flight; default {@link DEFAULT_MAX_QUEUED_BYTES}. */
  readonly maxQueuedBytes?: number;
  /** First retry delay of the SDK's retry policy; doubles (with jitter) up to `maxRetryDelayMs`. Default 200 ms. */
  readonly retryDelayMs?: number;
  /** Longest wait between two tries of a batch; default 5 s. */
  readonly maxRetryDelayMs?: number;
  /**
   * How long a batch may keep failing before the writer reports `stream.delivery_stalled` on
   * `errors$` (once per stall); default 10 s.
   */
  readonly stallAfterMs?: number;
  /**
   * How long {@link Outbox.ready} waits, at most, for a request to leave the process (see
   * `Transport.reportsSent`); default 50 ms.
   */
  readonly sendWaitMs?: number;
  readonly logger?: Logger;
}

/** How long `writer.flush()` waits (docs/transport.md, "Bounded waits"). */
export interface FlushOptions {
  /** Stops waiting: rejects with `stream.undelivered`; the records stay queued. */
  readonly signal?: AbortSignal;
  /** Stops waiting after this long: rejects with `stream.undelivered`; the records stay queued. */
  readonly timeoutMs?: number;
}

/** How long `writer.close()` waits before it gives up on what is not stored (docs/transport.md, "Bounded waits"). */
export interface WriterCloseOptions {
  /** Gives up this long after the call: what is not stored is rejected with `stream.undelivered`. */
  readonly deadlineMs?: number;
  /** Gives up when it aborts, as at the deadline. */
  readonly signal?: AbortSignal;
}

/** What a record's delivery settles with: the server's ack, or the message's {@link Delivered}. */
type Settled = AppendAck | Delivered;

/** A record queued or in flight, and the delivery it settles. */
class Entry {
  /** Settles {@link Entry.delivery}; set by the promise's executor. */
  resolve!: (value: Settled) => void;
  reject!: (error: unknown) => void;
  readonly delivery: Promise<Settled>;

  constructor(
    readonly localId: string,
    /** The message the record belongs to (a v1 message may have several records). */
    readonly messageId: string,
    /** The ciphertext, or its promise while an asynchronous cipher (WebCrypto) works on it. */
    readonly content: string | Promise<string>,
    /** Size counted against `maxQueuedBytes`. */
    readonly bytes: number,
    /**
     * The message's one record ({@link Outbox.enqueueMessage}): the delivery settles with the
     * message's {@link Delivered}, and a failure is told to the outbox's `onRejected` instead of
     * going unhandled.
     */
    readonly whole: boolean,
  ) {
    this.delivery = new Promise<Settled>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
  }
}

/** One already resolved promise for every {@link Outbox.ready} that need not wait. */
const READY: Promise<void> = Promise.resolve();

const ignore = (): void => undefined;

const DEFAULT_STALL_AFTER_MS = 10_000;

/** The default of {@link OutboxOptions.maxQueued}: ten times the high-water mark. */
export const DEFAULT_MAX_QUEUED = 10_000;

/** The default of {@link OutboxOptions.maxQueuedBytes}: 64 MiB, 64 records of the largest size. */
export const DEFAULT_MAX_QUEUED_BYTES = 64 * 1024 * 1024;

/** Whether {@link Outbox.admits} let a message in, and if not, whether it is the first refused since there was room. */
export type Admission = 'admitted' | 'refused-first' | 'refused';

/**
 * How long {@link Outbox.ready} waits, at most, for a request to leave the process. A request on an
 * open keep-alive connection leaves within the same turn of the event loop; one that waits for a
 * connection (or for a server that does not take it) should not hold the producer for the whole
 * request time-out.
 */
export const DEFAULT_SEND_WAIT_MS = 50;

/**
 * Delivers records in append order (docs/architecture.md, "Delivery"). It batches up to
 * `maxBatch`, retries what the SDK's one retry policy retries (network failures, 408, 429 after its
 * `Retry-After`, 5xx) with the same `localId`s, so a retry never duplicates, and reports a stall
 * once per stall. A final error (another 4xx) stops it: every queued delivery then rejects, and
 * nothing is silently dropped. An acknowledgement without a record's `localId` rejects that
 * record's delivery with `transport.bad_response`. `flush()` and `close()` wait a bounded time when
 * asked to, and say which messages were not stored (`stream.undelivered`).
 */
export class Outbox {
  private readonly queue: Entry[] = [];
  private readonly maxBatch: number;
  private readonly highWaterMark: number;
  private readonly maxQueued: number;
  private readonly maxQueuedBytes: number;
  private queuedBytes = 0;
  /** Refusing content past the hard bound, until the queue is back under the high-water mark. */
  private overflowing = false;
  private readonly policy: RetryPolicy;
  private readonly stallAfterMs: number;
  private readonly sendWaitMs: number;
  private readonly logger: Logger;
  private running = false;
  private scheduled = false;
  private failure: SdkError | undefined;
  private closed = false;
  private readyWaiters: Array<() => void> = [];
  private retryAbort: AbortController | undefined;
  private stallTimer: ReturnType<typeof setTimeout> | undefined;
  private stalled = false;
  /** A request is made but has not left the process yet (`Transport.reportsSent`). */
  private sending = false;
  private sendWait: ReturnType<typeof setTimeout> | undefined;
  private lastFailure: unknown;

  constructor(
    private readonly transport: Transport,
    options: OutboxOptions = {},
    /** Told once per stall (a batch failing for longer than `stallAfterMs`), with the cause. */
    private readonly onStall: (error: SdkError) => void = () => undefined,
    /**
     * Told of each failed delivery of {@link Outbox.enqueueMessage}, as it is rejected, with the
     * message's id (the writer reports it on `errors$`).
     */
    private readonly onRejected: (error: unknown, messageId: string) => void = () => undefined,
  ) {
    this.maxBatch = Math.min(Math.max(options.maxBatch ?? 100, 1), 100);
    this.highWaterMark = Math.max(options.highWaterMark ?? 1000, 1);
    this.maxQueued = Math.max(options.maxQueued ?? DEFAULT_MAX_QUEUED, this.highWaterMark);
    this.maxQueuedBytes = Math.max(options.maxQueuedBytes ?? DEFAULT_MAX_QUEUED_BYTES, 1);
    this.policy = new RetryPolicy({
      baseDelayMs: options.retryDelayMs ?? 200,
      maxDelayMs: options.maxRetryDelayMs ?? 5000,
    });
    this.stallAfterMs = Math.max(0, options.stallAfterMs ?? DEFAULT_STALL_AFTER_MS);
    this.sendWaitMs = Math.max(0, options.sendWaitMs ?? DEFAULT_SEND_WAIT_MS);
    this.logger = options.logger ?? silentLogger;
  }

  /** Records queued or in flight. */
  get size(): number {
    return this.queue.length;
  }

  /** The error that stopped the outbox, if any. */
  get error(): SdkError | undefined {
    return this.failure;
  }

  /**
   * Whether a message of `records` records and `bytes` bytes fits under the hard bound. Past it
   * the outbox refuses until the queue is back under the high-water mark, so a producer that
   * outruns the server finds room again only once `ready()` would resolve; `refused-first` marks
   * the first refusal of such a stretch (the writer reports it once on `errors$`).
   */
  admits(records: number, bytes: number): Admission {
    if (this.overflowing && this.queue.length >= this.highWaterMark) return 'refused';
    this.overflowing = false;
    const fits =
      this.queue.length + records <= this.maxQueued &&
      (this.queuedBytes + bytes <= this.maxQueuedBytes || this.queue.length === 0);
    if (fits) return 'admitted';
    this.overflowing = true;
    return 'refused-first';
  }

  /** The `stream.backpressure` error of a message {@link Outbox.admits} refused. */
  refusal(messageId: string, type: string): SdkError {
    return backpressure(messageId, type, {
      queued: this.queue.length,
      bytes: this.queuedBytes,
      maxQueued: this.maxQueued,
      maxQueuedBytes: this.maxQueuedBytes,
    });
  }

  /**
   * Queues one record; the promise settles when the server has stored it. `bytes` (default the
   * content's length) counts against `maxQueuedBytes`; the caller checks {@link Outbox.admits} first.
   */
  enqueue(
    localId: string,
    content: string | Promise<string>,
    messageId: string = localId,
    bytes: number = typeof content === 'string' ? content.length : 0,
  ): Promise<AppendAck> {
    const refused = this.refusedNow();
    if (refused) return refused;
    return this.push(new Entry(localId, messageId, content, bytes, false)) as Promise<AppendAck>;
  }

  /**
   * Queues the one record of a message, with the message id as `localId`: the promise settles
   * with the message's {@link Delivered} once the server has stored it. A failure is told to the
   * outbox's `onRejected` as the promise rejects, and the promise is marked handled, so that a
   * delivery nobody awaits never goes unhandled: one promise per message, where a `then` and a
   * `catch` of {@link Outbox.enqueue} made three (docs/performance.md, "Cutting the client's CPU
   * per message").
   */
  enqueueMessage(messageId: string, content: string | Promise<string>, bytes: number): Promise<Delivered> {
    const refused = this.refusedNow();
    if (refused) {
      refused.catch((error: unknown) => this.onRejected(error, messageId));
      return refused;
    }
    return this.push(new Entry(messageId, messageId, content, bytes, true)) as Promise<Delivered>;
  }

  /** The rejection of a record queued now, when the outbox has stopped or is closed. */
  private refusedNow(): Promise<never> | undefined {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) {
      return Promise.reject(
        new SdkError('stream.closed', 'The writer is closed; nothing more can be appended.'),
      );
    }
    return undefined;
  }

  private push(entry: Entry): Promise<Settled> {
    this.queue.push(entry);
    this.queuedBytes += entry.bytes;
    // Started a microtask later, so that records appended in one synchronous run share a batch.
    if (!this.running && !this.scheduled) {
      this.scheduled = true;
      queueMicrotask(this.startPump);
    }
    return entry.delivery;
  }

  private readonly startPump = (): void => {
    this.scheduled = false;
    void this.pump();
  };

  /** Settles an entry's delivery with the server's ack. */
  private settle(entry: Entry, ack: AppendAck): void {
    entry.resolve(entry.whole ? { messageId: entry.messageId, seq: ack.seq } : ack);
  }

  /** Rejects an entry's delivery; a message's own is marked handled and told to `onRejected`. */
  private fail(entry: Entry, error: unknown): void {
    if (!entry.whole) {
      entry.reject(error);
      return;
    }
    entry.delivery.catch(ignore);
    entry.reject(error);
    this.onRejected(error, entry.messageId);
  }

  /**
   * Resolves when fewer than `highWaterMark` records are queued and no request is waiting to leave
   * the process: a producer's appends (validation, encryption) run on this thread, and run before
   * a request is written they would hold it back instead of overlapping it (see
   * `Transport.reportsSent`; docs/performance.md, "Write throughput"). A request still not written
   * after `sendWaitMs` (a connection being made, a server that does not take it) holds no one.
   */
  ready(): Promise<void> {
    if (this.isReady()) return READY;
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  /**
   * Resolves when everything queued so far is stored. Rejects with the failure that stopped the
   * outbox, or with the first delivery error among those records, or, when `timeoutMs` passes or
   * `signal` aborts first, with `stream.undelivered` naming the messages not stored yet (they stay
   * queued and are still retried).
   */
  async flush(options: FlushOptions = {}): Promise<void> {
    if (this.failure) throw this.failure;
    const waiting = [...this.queue];
    if (waiting.length === 0) return;
    const stored = new Set<Entry>();
    const outcomes = Promise.allSettled(
      waiting.map((entry) => entry.delivery.then(() => void stored.add(entry))),
    );
    const outcome = await within(outcomes, options.timeoutMs, options.signal);
    if (outcome !== 'settled') {
      const ids = waiting.filter((e) => !stored.has(e)).map((e) => e.messageId);
      throw undelivered(ids, outcome);
    }
    if (this.failure) throw this.failure;
    const failed = (await outcomes).find((o) => o.status === 'rejected');
    if (failed) throw failed.reason;
  }

  /**
   * Refuses new records and waits for what is queued. Past the deadline (or when `signal` aborts)
   * it stops retrying, rejects every delivery not stored with `stream.undelivered`, and rejects
   * with that error, which names them. A request in flight then may still be stored.
   */
  async close(options: WriterCloseOptions = {}): Promise<void> {
    this.closed = true;
    try {
      await this.flush({
        ...(options.deadlineMs !== undefined ? { timeoutMs: options.deadlineMs } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if (isSdkError(error, 'stream.undelivered')) this.abandon(error);
      throw error;
    }
  }

  /** Retries a waiting batch now instead of after its backoff (after a reconnect, say). */
  retryNow(): void {
    this.retryAbort?.abort();
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      while (this.queue.length > 0 && !this.failure) {
        const batch = this.queue.slice(0, this.maxBatch);
        const records = await this.contents(batch);
        const delivering = records.length > 0 ? this.deliver(batch, records) : undefined;
        // Room freed by the last batch is announced only once this one is on its way (for a
        // transport that reports it, once its request has left): a waiting producer's appends
        // then overlap the request in flight instead of holding it back.
        this.notifyReady();
        if (delivering) await delivering;
        if (this.failure) break;
        for (const entry of this.queue.splice(0, batch.length)) this.queuedBytes -= entry.bytes;
      }
    } finally {
      this.running = false;
      this.notifyReady();
    }
  }

  /** Awaits each entry's ciphertext; an entry whose encryption failed is rejected and skipped. */
  private async contents(batch: Entry[]): Promise<OutgoingRecord[]> {
    // Sealed synchronously (node:crypto): no promise to wait for.
    if (batch.every((e) => typeof e.content === 'string')) {
      return batch.map((e) => ({ localId: e.localId, content: e.content as string }));
    }
    const settled = await Promise.allSettled(batch.map((e) => e.content));
    const records: OutgoingRecord[] = [];
    settled.forEach((result, i) => {
      const entry = batch[i]!;
      if (result.status === 'fulfilled') records.push({ localId: entry.localId, content: result.value });
      else this.fail(entry, result.reason);
    });
    return records;
  }

  private async deliver(batch: Entry[], records: OutgoingRecord[]): Promise<void> {
    for (let attempt = 1; !this.failure; attempt++) {
      let acks: readonly AppendAck[];
      this.sending = this.transport.reportsSent === true;
      if (this.sending) this.sendWait = setTimeout(this.onSent, this.sendWaitMs);
      try {
        acks = await this.transport.append(records, this.sending ? { onSent: this.onSent } : {});
      } catch (error) {
        this.onSent();
        if (this.failure) return;
        const delay = this.policy.delayAfter(error, attempt);
        if (delay === undefined) {
          this.stop(error, batch);
          return;
        }
        this.watchStall(error);
        this.logger.warn('append failed, retrying', {
          attempt,
          delayMs: Math.round(delay),
          error: String(error),
        });
        this.retryAbort = new AbortController();
        await pause(delay, this.retryAbort.signal);
        this.retryAbort = undefined;
        continue;
      }
      this.onSent();
      this.clearStall();
      this.settleAll(batch, acks);
      return;
    }
  }

  /**
   * Settles each record of a stored batch with its ack, found by `localId`: in order, as the server
   * answers, without a map; any other order through one.
   */
  private settleAll(batch: readonly Entry[], acks: readonly AppendAck[]): void {
    let i = 0;
    for (; i < batch.length && i < acks.length && acks[i]!.localId === batch[i]!.localId; i++) {
      this.settle(batch[i]!, acks[i]!);
    }
    if (i === batch.length) return;
    const byLocalId = new Map(acks.map((a) => [a.localId, a]));
    for (; i < batch.length; i++) {
      const entry = batch[i]!;
      const ack = byLocalId.get(entry.localId);
      if (ack) this.settle(entry, ack);
      else this.fail(entry, missingAck(entry.localId, entry.messageId));
    }
  }

  /** Starts the stall clock at the first failure of a streak; reports once when it runs out. */
  private watchStall(error: unknown): void {
    this.lastFailure = error;
    if (this.stallTimer !== undefined || this.stalled) return;
    const since = Date.now();
    this.stallTimer = setTimeout(() => {
      this.stallTimer = undefined;
      if (this.failure) return;
      this.stalled = true;
      const stall = deliveryStalled(Date.now() - since, this.queue.length, this.lastFailure);
      this.logger.error('delivery stalled', { pending: this.queue.length, error: String(this.lastFailure) });
      this.onStall(stall);
    }, this.stallAfterMs);
  }

  private clearStall(): void {
    clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
    this.stalled = false;
    this.lastFailure = undefined;
  }

  /**
   * A final error: every queued delivery rejects with it, and so does everything appended later.
   * It names the messages of the failed batch, so the writer reports it once (docs/architecture.md,
   * "Delivery").
   */
  private stop(error: unknown, batch: Entry[]): void {
    const cause =
      error instanceof SdkError
        ? error
        : new SdkError('stream.delivery_failed', `Appending records failed: ${String(error)}`, {
            cause: error,
          });
    this.failure = batchFailure(
      cause,
      batch.map((e) => e.messageId),
      Math.max(0, this.queue.length - batch.length),
    );
    this.logger.error('outbox stopped', { code: this.failure.code, message: this.failure.message });
    this.rejectAll(batch, this.failure);
  }

  /**
   * Stops for good with `error` (the session was taken over, docs/writer-lease.md): what is
   * queued is not sent and rejects with it, and so does everything pushed later.
   */
  revoke(error: SdkError): void {
    if (this.failure) return;
    this.failure = error;
    this.retryAbort?.abort();
    this.rejectAll([], error);
  }

  /** Gives up at a close deadline: stops retrying, rejects what is not stored. */
  private abandon(error: SdkError): void {
    if (this.failure) return;
    this.failure = error;
    this.retryAbort?.abort();
    this.logger.error('closed with records not stored', { messageIds: error.details?.messageIds });
    this.rejectAll([], error);
  }

  private rejectAll(batch: Entry[], error: SdkError): void {
    this.clearStall();
    const pending = new Set([...batch, ...this.queue]);
    for (const entry of pending) this.fail(entry, error);
    this.queue.length = 0;
    this.queuedBytes = 0;
    this.overflowing = false;
    this.notifyReady();
  }

  /** The request in flight has left the process (or has settled): producers may go on. */
  private readonly onSent = (): void => {
    clearTimeout(this.sendWait);
    this.sendWait = undefined;
    if (!this.sending) return;
    this.sending = false;
    this.notifyReady();
  };

  private isReady(): boolean {
    return this.failure !== undefined || (this.queue.length < this.highWaterMark && !this.sending);
  }

  private notifyReady(): void {
    if (!this.isReady()) return;
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const w of waiters) w();
  }
}
