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
import { isRetryableTransportError } from './retryPolicy.js';
import type { ReadPage, StoredRecord, Transport } from './transport.js';

/** Options of {@link recordFeed}. */
export interface RecordFeedOptions {
  /** Start after this `seq`; default 0 (from the first record). */
  readonly afterSeq?: number;
  /** Records per read call; default 500, the server's largest page. */
  readonly pageSize?: number;
  /** First wait before a failed read is tried again; doubles up to 5 s. Default 250 ms. */
  readonly retryDelayMs?: number;
  /**
   * How long after the last record the feed reads past it once more, in case the hint of a record
   * was lost (docs/transport.md, "Live reading"). While nothing arrives the wait doubles up to
   * {@link RecordFeedOptions.maxTailCheckMs}; a record resets it. Default 1 000 ms.
   */
  readonly tailCheckMs?: number;
  /** The longest wait between two checks of an idle stream's tail. Default 30 000 ms. */
  readonly maxTailCheckMs?: number;
}

/** Why the feed reads: a live hint to check, or a catch-up from the cursor. */
type Trigger = { readonly hint: StoredRecord } | { readonly hint?: undefined };

const MAX_RETRY_DELAY_MS = 5_000;

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
 * skips ahead, every `resync$` notice, and a tail check a while after the last record (a lost hint
 * of the last record shows no gap) trigger a paged read from the last `seq` taken. Triggers
 * are handled one at a time, in order. A read that fails with a retryable error (the network, a
 * restarting server) is tried again with backoff from where the feed stood; any other error ends
 * the feed with that error. The one feed of the SDK: the reader, the session's inbox and the
 * user-side session all follow a stream through it.
 */
export function recordFeed(transport: Transport, options: RecordFeedOptions = {}): Observable<StoredRecord> {
  const pageSize = options.pageSize ?? 500;
  const firstDelay = options.retryDelayMs ?? 250;
  const tailCheckMs = options.tailCheckMs ?? 1_000;
  const maxTailCheckMs = Math.max(options.maxTailCheckMs ?? 30_000, tailCheckMs);
  return defer(() => {
    let cursor = options.afterSeq ?? 0;
    const readAfter = (afterSeq: number): Observable<ReadPage & { readonly afterSeq: number }> =>
      defer(() => transport.read(afterSeq, { limit: pageSize })).pipe(map((page) => ({ ...page, afterSeq })));
    const catchUp = (): Observable<StoredRecord> =>
      readAfter(cursor).pipe(
        // Next page while the server says there is more and the cursor moved (a misbehaving server
        // that repeats a page cannot hold the feed in a loop).
        expand((page) => {
          const last = page.records.at(-1)?.seq ?? page.afterSeq;
          return page.hasMore && last > page.afterSeq ? readAfter(last) : EMPTY;
        }),
        concatMap((page) => page.records),
      );
    // A record taken restarts the tail checks: a hint lost at the end of a burst is read soon.
    const taken = new BehaviorSubject<void>(undefined);
    const triggers: Observable<Trigger> = merge(
      transport.records$.pipe(map((hint) => ({ hint }))),
      transport.resync$?.pipe(map(() => ({}))) ?? EMPTY,
      taken.pipe(
        switchMap(() => growingTicks(tailCheckMs, maxTailCheckMs)),
        map(() => ({})),
      ),
    );
    return defer(() => merge(of({}), triggers)).pipe(
      concatMap((trigger: Trigger) => {
        if (trigger.hint && trigger.hint.seq <= cursor) return EMPTY;
        if (trigger.hint && trigger.hint.seq === cursor + 1) return of(trigger.hint);
        return catchUp();
      }),
      filter((record) => record.seq > cursor),
      tap((record) => {
        cursor = record.seq;
        taken.next();
      }),
      retry({
        delay: (error: unknown, attempt: number) =>
          isRetryableTransportError(error)
            ? timer(Math.min(firstDelay * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS))
            : throwError(() => error),
        resetOnSuccess: true,
      }),
    );
  });
}
