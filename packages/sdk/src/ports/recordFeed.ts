import {
  BehaviorSubject,
  EMPTY,
  concatMap,
  defer,
  expand,
  filter,
  map,
  merge,
  of,
  retry,
  skip,
  switchMap,
  tap,
  throwError,
  timer,
} from 'rxjs';
import type { Observable } from 'rxjs';
import { RetryPolicy } from './retryPolicy.js';
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

/** Ticks after `first`, then after twice as long each time, up to `max`: the idle tail checks. */
function growingTicks(first: number, max: number): Observable<unknown> {
  return defer(() => {
    let delay = first;
    return of(0).pipe(
      expand(() => {
        const tick = timer(delay);
        delay = Math.min(delay * 2, max);
        return tick;
      }),
      skip(1),
    );
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
    const settled = new BehaviorSubject<void>(undefined);
    // Records taken in one run (the hints of one socket read) restart the tail checks once: a timer
    // restarted per record was most of what a live hint cost the writer's own echoes
    // (docs/performance.md, "Write throughput").
    let restartQueued = false;
    const restartTailChecks = (): void => {
      if (restartQueued) return;
      restartQueued = true;
      queueMicrotask(() => {
        restartQueued = false;
        settled.next();
      });
    };
    const catchUp = (tail: boolean): Observable<StoredRecord> =>
      readAfter(cursor).pipe(
        // Next page while the server says there is more and the cursor moved (a misbehaving server
        // that repeats a page cannot hold the feed in a loop).
        expand((page) => {
          const last = page.records.at(-1)?.seq ?? page.afterSeq;
          return page.hasMore && last > page.afterSeq ? readAfter(last) : EMPTY;
        }),
        tap({ complete: () => (tail ? undefined : settled.next()) }),
        concatMap((page) => page.records),
      );
    const triggers: Observable<Trigger> = merge(
      transport.records$.pipe(map((hint) => ({ hint }))),
      transport.resync$?.pipe(map(() => ({ tail: false }))) ?? EMPTY,
      settled.pipe(
        switchMap(() => growingTicks(tailCheckMs, maxTailCheckMs)),
        map(() => ({ tail: true })),
      ),
    );
    return defer(() => merge(of({ tail: false }), triggers)).pipe(
      concatMap((trigger: Trigger) => {
        if (!trigger.hint) return catchUp(trigger.tail);
        if (trigger.hint.seq <= cursor) return EMPTY;
        // A hint that skips ahead: catch up from the cursor (the hint's record comes with it).
        return trigger.hint.seq === cursor + 1 ? of(trigger.hint) : catchUp(false);
      }),
      filter((record) => record.seq > cursor),
      tap((record) => {
        cursor = record.seq;
        restartTailChecks();
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
