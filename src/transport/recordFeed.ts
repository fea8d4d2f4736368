import { Observable } from 'rxjs';
import type { StoredRecord, Transport } from './transport.js';
import { isRetryableTransportError } from './transportErrors.js';

/**
 * Every stored record after `afterSeq`, then new ones live, each exactly once and in `seq` order
 * (happy-wire §5.2, "Client discipline"): a hint for `lastSeq + 1` is taken as is, a hint that
 * skips ahead and every `resync$` notice trigger a paged read from `lastSeq`. A read that fails
 * with a retryable error (network, 5xx: a server restarting) is retried with backoff; any other
 * error goes to the subscriber.
 */
export function recordFeed(
  transport: Transport,
  options: { readonly afterSeq?: number; readonly pageSize?: number; readonly retryDelayMs?: number } = {},
): Observable<StoredRecord> {
  return new Observable<StoredRecord>((subscriber) => {
    let cursor = options.afterSeq ?? 0;
    let stopped = false;
    let chain: Promise<void> = Promise.resolve();
    let retryDelay = options.retryDelayMs ?? 250;
    let retryTimer: ReturnType<typeof setTimeout> | undefined;
    const take = (record: StoredRecord): void => {
      if (stopped || record.seq <= cursor) return;
      cursor = record.seq;
      subscriber.next(record);
    };
    const catchUp = async (): Promise<void> => {
      for (;;) {
        const before = cursor;
        const page = await transport.read(cursor, { limit: options.pageSize ?? 500 });
        for (const record of page.records) take(record);
        // Stop when the server says so, or when the cursor does not move (a misbehaving server).
        if (!page.hasMore || cursor === before) return;
      }
    };
    const enqueue = (task: () => Promise<void> | void): void => {
      chain = chain.then(task).then(
        () => {
          retryDelay = options.retryDelayMs ?? 250;
        },
        (error: unknown) => {
          if (stopped) return;
          if (!isRetryableTransportError(error)) {
            subscriber.error(error);
            return;
          }
          clearTimeout(retryTimer);
          retryTimer = setTimeout(() => enqueue(catchUp), retryDelay);
          retryDelay = Math.min(retryDelay * 2, 5000);
        },
      );
    };
    const live = transport.records$.subscribe((record) =>
      enqueue(() => {
        if (record.seq === cursor + 1) take(record);
        else if (record.seq > cursor + 1) return catchUp();
      }),
    );
    const resync = transport.resync$?.subscribe(() => enqueue(catchUp));
    enqueue(catchUp);
    return () => {
      stopped = true;
      clearTimeout(retryTimer);
      live.unsubscribe();
      resync?.unsubscribe();
    };
  });
}
