import type { PermissionOption, PermissionRequestMessage } from '../protocol/sessionMessage.js';
import type { PermissionDecision } from '../stream/plugins.js';
import type { ToolCall } from '../stream/toolCall.js';

/**
 * One permission request waiting for its first valid answer. It settles once: `settle` returns
 * false for every later attempt, which is what makes "first valid answer wins" atomic. Settling
 * releases its timer and its abort listener, so nothing of it outlives the request.
 */
export class PendingRequest {
  readonly promise: Promise<PermissionDecision>;
  private resolvePromise!: (decision: PermissionDecision) => void;
  private rejectPromise!: (error: unknown) => void;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private signal: AbortSignal | undefined;
  private onAbort: (() => void) | undefined;
  private done = false;

  constructor(
    readonly call: ToolCall,
    readonly options: readonly PermissionOption[],
    readonly createdAt: number,
    /** The appended `permission-request`, once it is appended. */
    public request: PermissionRequestMessage | undefined = undefined,
  ) {
    this.promise = new Promise((resolve, reject) => {
      this.resolvePromise = resolve;
      this.rejectPromise = reject;
    });
  }

  get settled(): boolean {
    return this.done;
  }

  /** Calls `onTimeout` after `ms`, unless settled first. */
  startTimer(ms: number, onTimeout: () => void): void {
    this.timer = setTimeout(onTimeout, ms);
  }

  /** Calls `onAbort` when `signal` aborts, unless settled first. */
  watch(signal: AbortSignal, onAbort: () => void): void {
    this.signal = signal;
    this.onAbort = onAbort;
    signal.addEventListener('abort', onAbort, { once: true });
  }

  /** Resolves with `decision` if nothing resolved it before; false otherwise. */
  settle(decision: PermissionDecision): boolean {
    if (!this.finish()) return false;
    this.resolvePromise(decision);
    return true;
  }

  /** Rejects with `error` (the request was never stored, so nobody can answer it) unless settled first. */
  fail(error: unknown): boolean {
    if (!this.finish()) return false;
    this.rejectPromise(error);
    return true;
  }

  private finish(): boolean {
    if (this.done) return false;
    this.done = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.signal && this.onAbort) this.signal.removeEventListener('abort', this.onAbort);
    this.timer = undefined;
    this.signal = undefined;
    this.onAbort = undefined;
    return true;
  }
}
