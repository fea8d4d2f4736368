import { SdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { isRetryableTransportError } from '../ports/retryPolicy.js';
import type { AppendAck, OutgoingRecord, Transport } from '../ports/transport.js';

/** Tuning of the {@link Outbox}. */
export interface OutboxOptions {
  /** Records per append call; the server takes at most 100 (docs/wire.md §5.2). */
  readonly maxBatch?: number;
  /** Queued records above which {@link Outbox.ready} waits: the backpressure point. */
  readonly highWaterMark?: number;
  /** First retry delay; doubles up to `maxRetryDelayMs`. */
  readonly retryDelayMs?: number;
  readonly maxRetryDelayMs?: number;
  readonly logger?: Logger;
}

interface Entry {
  readonly localId: string;
  /** The ciphertext, or its promise while an asynchronous cipher (WebCrypto) works on it. */
  readonly content: string | Promise<string>;
  readonly resolve: (ack: AppendAck) => void;
  readonly reject: (error: unknown) => void;
}

/**
 * Delivers records in append order. It batches up to `maxBatch`, retries network failures and 5xx
 * with backoff using the same `localId`s (so a retry never duplicates), and stops on a 4xx with a
 * typed error: every queued delivery then rejects, and nothing is silently dropped.
 * (docs/architecture.md, "Delivery")
 */
export class Outbox {
  private readonly queue: Entry[] = [];
  private readonly maxBatch: number;
  private readonly highWaterMark: number;
  private readonly retryDelayMs: number;
  private readonly maxRetryDelayMs: number;
  private readonly logger: Logger;
  private running = false;
  private scheduled = false;
  private failure: SdkError | undefined;
  private closed = false;
  private idleWaiters: Array<() => void> = [];
  private readyWaiters: Array<() => void> = [];
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private wakeRetry: (() => void) | undefined;

  constructor(
    private readonly transport: Transport,
    options: OutboxOptions = {},
  ) {
    this.maxBatch = Math.min(Math.max(options.maxBatch ?? 100, 1), 100);
    this.highWaterMark = Math.max(options.highWaterMark ?? 1000, 1);
    this.retryDelayMs = options.retryDelayMs ?? 200;
    this.maxRetryDelayMs = options.maxRetryDelayMs ?? 5000;
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

  /** Queues one record; the promise settles when the server has stored it. */
  enqueue(localId: string, content: string | Promise<string>): Promise<AppendAck> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.closed) {
      return Promise.reject(
        new SdkError('stream.closed', 'The writer is closed; nothing more can be appended.'),
      );
    }
    const delivery = new Promise<AppendAck>((resolve, reject) => {
      this.queue.push({ localId, content, resolve, reject });
    });
    // Started a microtask later, so that records appended in one synchronous run share a batch.
    if (!this.running && !this.scheduled) {
      this.scheduled = true;
      queueMicrotask(() => {
        this.scheduled = false;
        void this.pump();
      });
    }
    return delivery;
  }

  /** Resolves when fewer than `highWaterMark` records are queued. */
  ready(): Promise<void> {
    if (this.queue.length < this.highWaterMark || this.failure) return Promise.resolve();
    return new Promise((resolve) => this.readyWaiters.push(resolve));
  }

  /** Resolves when everything queued so far is stored; rejects with the failure that stopped it. */
  flush(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) =>
      this.idleWaiters.push(() => (this.failure ? reject(this.failure) : resolve())),
    );
  }

  /** Refuses new records; what is queued is still delivered. */
  close(): void {
    this.closed = true;
  }

  /** Retries a waiting batch now instead of after its backoff (after a reconnect, say). */
  retryNow(): void {
    this.wakeRetry?.();
  }

  private async pump(): Promise<void> {
    if (this.running) return;
    this.running = true;
    let freed = false;
    try {
      while (this.queue.length > 0 && !this.failure) {
        const batch = this.queue.slice(0, this.maxBatch);
        const records = await this.contents(batch);
        const delivering = records.length > 0 ? this.deliver(batch, records) : undefined;
        // Room freed by the last batch is announced only once this one is on its way: a waiting
        // producer's appends (validation, encryption) then overlap the request in flight
        // instead of holding it back. Calling deliver() reaches the transport's request
        // synchronously.
        if (freed) this.notifyReady();
        if (delivering) await delivering;
        this.queue.splice(0, batch.length);
        freed = true;
      }
    } finally {
      this.running = false;
      this.notifyReady();
      if (this.queue.length === 0 || this.failure) this.notifyIdle();
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
      else entry.reject(result.reason);
    });
    return records;
  }

  private async deliver(batch: Entry[], records: OutgoingRecord[]): Promise<void> {
    let delay = this.retryDelayMs;
    for (let attempt = 1; ; attempt++) {
      try {
        const acks = await this.transport.append(records);
        const byLocalId = new Map(acks.map((a) => [a.localId, a]));
        for (const entry of batch) {
          const ack = byLocalId.get(entry.localId);
          if (ack) entry.resolve(ack);
        }
        return;
      } catch (error) {
        if (!isRetryableTransportError(error)) {
          this.stop(error, batch);
          return;
        }
        this.logger.warn('append failed, retrying', { attempt, delayMs: delay, error: String(error) });
        await this.sleep(delay);
        delay = Math.min(delay * 2, this.maxRetryDelayMs);
      }
    }
  }

  private stop(error: unknown, batch: Entry[]): void {
    this.failure =
      error instanceof SdkError
        ? error
        : new SdkError('stream.delivery_failed', `Appending records failed: ${String(error)}`, {
            cause: error,
          });
    this.logger.error('outbox stopped', { code: this.failure.code, message: this.failure.message });
    const pending = new Set([...batch, ...this.queue]);
    for (const entry of pending) entry.reject(this.failure);
    this.queue.length = 0;
    this.notifyReady();
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(this.retryTimer);
        this.retryTimer = undefined;
        this.wakeRetry = undefined;
        resolve();
      };
      this.wakeRetry = done;
      this.retryTimer = setTimeout(done, ms);
    });
  }

  private notifyReady(): void {
    if (this.queue.length >= this.highWaterMark && !this.failure) return;
    const waiters = this.readyWaiters;
    this.readyWaiters = [];
    for (const w of waiters) w();
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
