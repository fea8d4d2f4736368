const watchers = new WeakMap<AbortSignal, Set<() => void>>();

/**
 * Calls `onAbort` once when `signal` aborts, and returns the function that stops watching. However
 * many watch one signal (every permission request of a turn watches the turn's stop), the signal
 * holds a single listener, so a busy turn does not trip Node's listener-leak warning on the host
 * program's console.
 */
export function watchAbort(signal: AbortSignal, onAbort: () => void): () => void {
  let watching = watchers.get(signal);
  if (!watching) {
    const fresh = new Set<() => void>();
    watchers.set(signal, fresh);
    signal.addEventListener(
      'abort',
      () => {
        watchers.delete(signal);
        for (const callback of [...fresh]) callback();
      },
      { once: true },
    );
    watching = fresh;
  }
  const entry = (): void => onAbort();
  watching.add(entry);
  const set = watching;
  return () => void set.delete(entry);
}
