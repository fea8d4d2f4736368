/** Waits `ms`; resolves false at once when `signal` aborts first, true otherwise. */
export function pause(ms: number, signal?: AbortSignal): Promise<boolean> {
  if (signal?.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve(true);
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** How a bounded wait ended: the work settled, the time ran out, or the signal aborted. */
export type WaitOutcome = 'settled' | 'timeout' | 'aborted';

/**
 * Waits for `work` at most `ms` (no limit when undefined or infinite), or until `signal` aborts.
 * `work` is not cancelled, only no longer waited for, and its failure is not this function's: the
 * caller looks at `work` itself. The one bounded wait of `flush()`, `close()` and `Session.close()`.
 */
export async function within(
  work: Promise<unknown>,
  ms: number | undefined,
  signal?: AbortSignal,
): Promise<WaitOutcome> {
  if (signal?.aborted) return 'aborted';
  const settled = work.then(
    () => 'settled' as const,
    () => 'settled' as const,
  );
  const bounded = ms !== undefined && Number.isFinite(ms);
  if (!bounded && !signal) return settled;
  const stop = new AbortController();
  const forwardAbort = (): void => stop.abort();
  signal?.addEventListener('abort', forwardAbort, { once: true });
  const timedOut = bounded
    ? pause(Math.max(0, ms), stop.signal).then((elapsed) =>
        elapsed ? ('timeout' as const) : ('aborted' as const),
      )
    : new Promise<'aborted'>((resolve) =>
        stop.signal.addEventListener('abort', () => resolve('aborted'), { once: true }),
      );
  try {
    return await Promise.race([settled, timedOut]);
  } finally {
    signal?.removeEventListener('abort', forwardAbort);
    stop.abort();
  }
}
