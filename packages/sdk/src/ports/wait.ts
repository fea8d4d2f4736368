import { watchAbort } from './abortWatch.js';

/** Largest delay a Node timer can hold: the bound of every wait a host may time out. */
export const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * One waiter for one outcome (a permission request, a question), with the timer and the abort
 * listeners that may end it. It is released once: later releases do nothing, and releasing drops
 * the timer and the listeners, so nothing of it outlives the wait. Which outcome wins is not
 * decided here but by the arbiter (`stream/arbiter.ts`); this only lets the waiter go.
 */
export class Wait<T> {
  readonly promise: Promise<T>;
  private resolvePromise!: (value: T) => void;
  private rejectPromise!: (error: unknown) => void;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private readonly unwatch: Array<() => void> = [];
  private over = false;

  constructor() {
    this.promise = new Promise<T>((resolve, reject) => {
      this.resolvePromise = resolve;
      this.rejectPromise = reject;
    });
  }

  /** True once released. */
  get released(): boolean {
    return this.over;
  }

  /** Calls `onTimeout` after `ms`, unless released first. */
  startTimer(ms: number, onTimeout: () => void): void {
    this.timer = setTimeout(onTimeout, ms);
  }

  /** Calls `onAbort` when `signal` aborts, unless released first. */
  watch(signal: AbortSignal, onAbort: () => void): void {
    this.unwatch.push(watchAbort(signal, onAbort));
  }

  /** Lets the waiter go with `value`, once. */
  release(value: T): void {
    if (this.stop()) this.resolvePromise(value);
  }

  /** Lets the waiter go with `error` (what it waited for can never come), once. */
  fail(error: unknown): void {
    if (this.stop()) this.rejectPromise(error);
  }

  private stop(): boolean {
    if (this.over) return false;
    this.over = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    for (const stop of this.unwatch.splice(0)) stop();
    return true;
  }
}
