import {
  EMPTY,
  Observable,
  Subscription,
  concatMap,
  defer,
  expand,
  filter,
  map,
  retry,
  tap,
  throwError,
  timer,
} from 'rxjs';
import { inTurn } from './inTurn.js';
import { RetryPolicy } from './retryPolicy.js';
import type { TailCheckPacer } from './tailCheckPacer.js';
import type { ReadPage, StoredRecord, Transport } from './transport.js';

/** Options of {@link recordFeed}. */
export interface RecordFeedOptions {
  /** Start after this `seq`; default 0 (from the first record). */
  readonly afterSeq?: number;
  /** Records per read call; default 500, the server's largest page. */
  readonly pageSize?: number;
  /**
   * First wait before a failed read is tried again (the SDK's one retry policy, doubling up to 5 s,
   * with jitter). Default 250 ms.
   */
  readonly retryDelayMs?: number;
  /**
   * How long after the last record taken, or the last read, the feed reads past its last record
   * once more, in case the hint of a record was lost (docs/transport.md, "Live reading"). While
   * nothing arrives the wait doubles up to {@link RecordFeedOptions.maxTailCheckMs}; a record or a
   * read resets it. Default 1 000 ms.
   */
  readonly tailCheckMs?: number;
  /** The longest wait between two checks of an idle stream's tail. Default 30 000 ms. */
  readonly maxTailCheckMs?: number;
}

/** Why the feed reads: a live hint to check, a catch-up from the cursor, or a check of the tail. */
type Trigger =
  | { readonly hint: StoredRecord; readonly tail?: undefined }
  | { readonly hint?: undefined; readonly tail: boolean };

/** Default wait before the first tail check (docs/transport.md, "Live reading"). */
export const DEFAULT_TAIL_CHECK_MS = 1_000;
/** Default longest wait between two tail checks of an idle stream (docs/transport.md, "Live reading"). */
export const DEFAULT_MAX_TAIL_CHECK_MS = 30_000;

/**
 * The idle tail checks: a tick `first` after the last restart, then after twice as long each time,
 * up to `max`. A restart only notes when the next tick is due, because records restart the checks
 * one after another (a writer's own echoes, thousands a second); the one timer, when it fires before
 * that, waits out the rest. A timer restarted per record was most of what a live hint cost
 * (docs/performance.md, "Write throughput").
 */
class TailChecks {
  private delay: number;
  private due = 0;
  /** Cancels the armed timer (or the pacer's turn); undefined when none is armed. */
  private timer: (() => void) | undefined;
  /** When the armed timer fires. */
  private firesAt = 0;
  /** Whether the armed wait is the pacer's. */
  private paced = false;
  private tick: (() => void) | undefined;

  /** Ticks while subscribed, starting with a restart. */
  readonly ticks$ = new Observable<void>((subscriber) => {
    this.tick = () => subscriber.next();
    this.restart();
    return () => {
      this.tick = undefined;
      this.timer?.();
      this.timer = undefined;
    };
  });

  constructor(
    private readonly first: number,
    private readonly max: number,
    /** Takes the waits longer than `first` in turn with the other feeds of its connection. */
    private readonly pacer?: TailCheckPacer,
  ) {
    this.delay = first;
  }

  /** The next tick comes `first` from now. */
  restart(): void {
    this.delay = this.first;
    this.due = Date.now() + this.first;
    if (!this.tick) return;
    // A timer set for an idle stream's longer wait would fire too late: set it again.
    // A paced check may come well after its time: a stream in use gets a timer of its own again.
    if (this.timer === undefined || this.paced || this.firesAt > this.due) {
      this.timer?.();
      this.arm(this.first);
    }
  }

  private arm(ms: number): void {
    this.firesAt = Date.now() + ms;
    this.paced = this.pacer !== undefined && ms > this.first;
    if (this.pacer && this.paced) {
      this.timer = this.pacer.schedule(this.firesAt, () => this.fire());
      return;
    }
    const timer = setTimeout(() => this.fire(), ms);
    this.timer = () => clearTimeout(timer);
  }

  private fire(): void {
    this.timer = undefined;
    const early = this.due - Date.now();
    if (early > 0) {
      this.arm(early);
      return;
    }
    this.delay = Math.min(this.delay * 2, this.max);
    this.due = Date.now() + this.delay;
    this.arm(this.delay);
    this.tick?.();
  }
}

/**
 * A catch-up first, then a trigger for each live hint, each `resync$` notice and each tail check;
 * completes when all three sources have, fails when one does. What `merge(of(..), hints.pipe(map(..)),
 * ...)` would do, in one subscriber instead of two merges and three maps, which each open session
 * holds while it idles (docs/performance.md, "One host, a thousand sessions").
 */
function triggersOf(transport: Transport, tailChecks: TailChecks): Observable<Trigger> {
  return new Observable<Trigger>((subscriber) => {
    subscriber.next({ tail: false });
    let open = 3;
    const done = (): void => {
      open -= 1;
      if (open === 0) subscriber.complete();
    };
    const fail = (error: unknown): void => subscriber.error(error);
    const subscription = new Subscription();
    subscription.add(
      transport.records$.subscribe({
        next: (hint) => subscriber.next({ hint }),
        error: fail,
        complete: done,
      }),
    );
    if (transport.resync$) {
      subscription.add(
        transport.resync$.subscribe({
          next: () => subscriber.next({ tail: false }),
          error: fail,
          complete: done,
        }),
      );
    } else done();
    subscription.add(
      tailChecks.ticks$.subscribe({
        next: () => subscriber.next({ tail: true }),
        error: fail,
        complete: done,
      }),
    );
    return subscription;
  });
}

/**
 * Every stored record after `afterSeq`, then new ones live, each exactly once and in `seq` order
 * (docs/wire.md §5.2, "Client discipline"). A hint for `lastSeq + 1` is taken as is; a hint that
 * skips ahead, every `resync$` notice, and a tail check trigger a paged read from the last `seq`
 * taken. Tail checks catch a record whose hint was lost, which no later gap would reveal when it is
 * the last one: the first comes `tailCheckMs` after the last record taken or the last read, the
 * next ones twice as long after each other, up to `maxTailCheckMs` (docs/transport.md, "Live
 * reading"). Triggers are handled one at a time, in order. A read that fails with an error the
 * SDK's retry policy retries (the network, a 429, a restarting server) is tried again with backoff
 * from where the feed stood; any other error ends the feed with that error. The one feed of the
 * SDK: the reader, the session's inbox and the user-side session all follow a stream through it.
 */
export function recordFeed(transport: Transport, options: RecordFeedOptions = {}): Observable<StoredRecord> {
  const pageSize = options.pageSize ?? 500;
  const policy = new RetryPolicy({ baseDelayMs: options.retryDelayMs ?? 250, maxDelayMs: 5_000 });
  const tailCheckMs = options.tailCheckMs ?? DEFAULT_TAIL_CHECK_MS;
  const maxTailCheckMs = Math.max(options.maxTailCheckMs ?? DEFAULT_MAX_TAIL_CHECK_MS, tailCheckMs);
  return defer(() => {
    let cursor = options.afterSeq ?? 0;
    const readAfter = (afterSeq: number): Observable<ReadPage & { readonly afterSeq: number }> =>
      defer(() => transport.read(afterSeq, { limit: pageSize })).pipe(map((page) => ({ ...page, afterSeq })));
    // A record taken, or a catch-up read done, restarts the tail checks: a record stored just
    // after that read, or whose hint was lost at the end of a burst, is read soon. A tail check
    // that finds nothing does not: the waits of an idle stream grow.
    const tailChecks = new TailChecks(tailCheckMs, maxTailCheckMs, transport.tailCheckPacer);
    const catchUp = (tail: boolean): Observable<StoredRecord> =>
      readAfter(cursor).pipe(
        // Next page while the server says there is more and the cursor moved (a misbehaving server
        // that repeats a page cannot hold the feed in a loop).
        expand((page) => {
          const last = page.records.at(-1)?.seq ?? page.afterSeq;
          return page.hasMore && last > page.afterSeq ? readAfter(last) : EMPTY;
        }),
        tap({ complete: () => (tail ? undefined : tailChecks.restart()) }),
        concatMap((page) => page.records),
      );
    return triggersOf(transport, tailChecks).pipe(
      inTurn((trigger: Trigger) => {
        if (!trigger.hint) return catchUp(trigger.tail);
        if (trigger.hint.seq <= cursor) return undefined;
        // A hint that skips ahead: catch up from the cursor (the hint's record comes with it).
        return trigger.hint.seq === cursor + 1 ? trigger.hint : catchUp(false);
      }),
      filter((record) => record.seq > cursor),
      tap((record) => {
        cursor = record.seq;
        tailChecks.restart();
      }),
      retry({
        delay: (error: unknown, attempt: number) => {
          const delay = policy.delayAfter(error, attempt);
          return delay === undefined ? throwError(() => error) : timer(delay);
        },
        resetOnSuccess: true,
      }),
    );
  });
}
