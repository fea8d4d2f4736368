/**
 * Keeps Node's event loop alive until `work` settles, and returns it. A session's socket does not
 * keep the process alive (docs/recovery.md, "When the program's code ends"), so what must finish
 * once started, opening and closing a session, holds the loop itself.
 */
export function holdingLoop<T>(work: Promise<T>): Promise<T> {
  const hold = setInterval(() => undefined, HOLD_PERIOD_MS);
  return work.finally(() => clearInterval(hold));
}

/** Never fires in practice: the interval exists only to be a live handle. */
const HOLD_PERIOD_MS = 2 ** 30;
