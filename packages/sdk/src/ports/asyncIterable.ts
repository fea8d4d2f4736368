import type { Observable } from 'rxjs';

/** Options of {@link asyncIterableOf} and of every iterable a live stream of the SDK offers. */
export interface IterateOptions {
  /** Ends the iteration: the loop stops after the values already taken; no error is thrown. */
  readonly signal?: AbortSignal;
}

type Settled = { readonly done: true; readonly error?: unknown } | undefined;

/**
 * A live stream as an async iterable, for `for await (const value of …)` in the style of the Agent
 * Client Protocol and Claude Agent SDKs (docs/architecture.md, "Live streams"). It subscribes at
 * once, so a hot stream loses nothing between this call and the first `next()`; values wait in
 * order until the loop takes them. The loop ends when the stream completes or `signal` aborts;
 * the stream's error is thrown from the loop. Leaving the loop (`break`, `return`, a throw)
 * unsubscribes.
 */
export function asyncIterableOf<T>(source: Observable<T>, options: IterateOptions = {}): AsyncGenerator<T> {
  const { signal } = options;
  const queue: T[] = [];
  let settled: Settled;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  const settle = (outcome: NonNullable<Settled>): void => {
    settled ??= outcome;
    notify();
  };
  const onAbort = (): void => settle({ done: true });
  const subscription = signal?.aborted
    ? undefined
    : source.subscribe({
        next: (value) => {
          queue.push(value);
          notify();
        },
        error: (error: unknown) => settle({ done: true, error }),
        complete: () => settle({ done: true }),
      });
  if (signal?.aborted) settled = { done: true };
  else signal?.addEventListener('abort', onAbort, { once: true });

  const cleanup = (): void => {
    subscription?.unsubscribe();
    signal?.removeEventListener('abort', onAbort);
  };

  async function* iterate(): AsyncGenerator<T> {
    try {
      for (;;) {
        // An abort ends the loop at once; values still queued are dropped with it.
        if (signal?.aborted) return;
        if (queue.length > 0) {
          yield queue.shift() as T;
          continue;
        }
        if (settled) {
          if (settled.error !== undefined) throw settled.error;
          return;
        }
        await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      cleanup();
    }
  }
  const generator = iterate();
  // A generator returned before its first `next()` never runs its `finally`: unsubscribe here too.
  const returnGenerator = generator.return.bind(generator);
  generator.return = (value) => {
    cleanup();
    return returnGenerator(value);
  };
  return generator;
}
