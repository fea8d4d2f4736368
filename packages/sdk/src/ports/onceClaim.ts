import { watchAbort } from './abortWatch.js';

/** Largest delay a Node timer can hold: the bound of every wait a host may time out. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * Something waiting for one outcome (a permission request, a question) that is claimed once:
 * `claim` returns false for every later attempt, which is what makes "the first valid answer wins"
 * atomic. Claiming releases its timer and its abort listeners, so nothing of it outlives the wait
 * (docs/permissions.md, "One arbitration").
 */
export class OnceClaim {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly unwatch: Array<() => void> = [];
  private done = false;

  /** True once claimed. */
  get claimed(): boolean {
    return this.done;
  }

  /** Calls `onTimeout` after `ms`, unless claimed first. */
  startTimer(ms: number, onTimeout: () => void): void {
    this.timer = setTimeout(onTimeout, ms);
  }

  /** Calls `onAbort` when `signal` aborts, unless claimed first. */
  watch(signal: AbortSignal, onAbort: () => void): void {
    this.unwatch.push(watchAbort(signal, onAbort));
  }

  /** Takes it for one outcome if nothing took it before (false otherwise). */
  claim(): boolean {
    if (this.done) return false;
    this.done = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (const stop of this.unwatch) stop();
    this.unwatch.length = 0;
    return true;
  }
}
