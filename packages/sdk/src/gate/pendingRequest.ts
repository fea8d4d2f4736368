import { OnceClaim } from '../ports/onceClaim.js';
import type { PermissionOption } from '../protocol/sessionMessage.js';
import type { PermissionDecision } from '../stream/plugins.js';
import type { GatedCall } from '../stream/gatePorts.js';

/**
 * One permission request waiting for its first valid answer. It is claimed once: `claim` (and
 * `fail`, which claims) returns false for every later attempt, which is what makes "first
 * valid answer wins" atomic. Claiming releases its timer and its abort listeners, so nothing of it
 * outlives the request; the waiter is released separately, once the decision is recorded
 * ({@link PendingRequest.resolve}).
 */
export class PendingRequest {
  readonly promise: Promise<PermissionDecision>;
  private resolvePromise!: (decision: PermissionDecision) => void;
  private rejectPromise!: (error: unknown) => void;
  private readonly once = new OnceClaim();
  /** The request record's `seq`, once known (undefined while unknown or when it was not stored). */
  storedSeq: number | undefined;

  constructor(
    readonly call: GatedCall,
    readonly options: readonly PermissionOption[],
    readonly createdAt: number,
    /**
     * Settles with the `seq` of the appended `permission-request` once the server stored it, or
     * `undefined` when it was not stored. Stream answers are ordered against it.
     */
    readonly requestSeq: Promise<number | undefined>,
    /** The id of the `permission-request` record: what an answer names (`requestId`, the legacy `id`). */
    readonly recordId: string,
    /** True when no earlier request was made for this call: only then may an answer name no request. */
    readonly firstForCall: boolean,
  ) {
    this.promise = new Promise((resolve, reject) => {
      this.resolvePromise = resolve;
      this.rejectPromise = reject;
    });
    void requestSeq.then((seq) => (this.storedSeq = seq));
  }

  get settled(): boolean {
    return this.once.claimed;
  }

  /** Calls `onTimeout` after `ms`, unless settled first. */
  startTimer(ms: number, onTimeout: () => void): void {
    this.once.startTimer(ms, onTimeout);
  }

  /** Calls `onAbort` when `signal` aborts, unless settled first. */
  watch(signal: AbortSignal, onAbort: () => void): void {
    this.once.watch(signal, onAbort);
  }

  /** Claims and rejects with `error` (the request was never stored, so nobody can answer it) unless claimed first. */
  fail(error: unknown): boolean {
    if (!this.claim()) return false;
    this.rejectPromise(error);
    return true;
  }

  /** Releases the waiter with `decision`, after a {@link PendingRequest.claim} that returned true. */
  resolve(decision: PermissionDecision): void {
    this.resolvePromise(decision);
  }

  /**
   * Takes the request for one decision if nothing took it before (false otherwise); the waiter
   * stays waiting until {@link PendingRequest.resolve}.
   */
  claim(): boolean {
    return this.once.claim();
  }
}
