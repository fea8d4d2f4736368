import type { Logger } from '../logger.js';
import type { GatedCall } from '../stream/gatePorts.js';
import { PERMISSION_SETTLED_PREFIX } from '../stream/permissionLedger.js';
import type { PermissionDecision } from '../stream/plugins.js';
import type { Delivery } from '../stream/types.js';
import type { GateDecision, GateSettlement } from './answering.js';
import { seqOf } from './answering.js';
import type { PermissionBroker } from './broker.js';
import { cancelledDecision } from './decision.js';
import type { GatePolicy } from './gatePolicy.js';
import { PendingRequest } from './pendingRequest.js';
import type { RespondResult } from './respondResult.js';
import { refuse } from './respondResult.js';
import type { TimeoutPolicy } from './timeouts.js';
import { timeoutDecision } from './timeouts.js';

const CANCELLED = 'cancelled';

/**
 * How a request ends (docs/permissions.md, "One arbitration"): a decision is taken once, through
 * the broker (whose adapters mirror agentState, drop the push and grant rules); carrying it out
 * releases the waiter, ends the call on every outcome but allow, and names the record that closes
 * the request in the stream. Every failure on the way ends the call: nothing here allows a call.
 */
export class Settlement implements GateSettlement {
  constructor(
    private readonly deps: {
      readonly broker: PermissionBroker;
      readonly policy: GatePolicy;
      readonly logger: Logger;
      /** Runs a stream write whose failure must not break the gate. */
      readonly safely: (write: () => unknown) => void;
    },
  ) {}

  /** The pending request of a call, or the typed result for a settled or unknown one. */
  lookup(callId: string): PendingRequest | RespondResult {
    const found = this.deps.broker.lookup(callId);
    if (found instanceof PendingRequest) return found;
    if (found) return { status: 'already_resolved', callId, decision: found.decision, resolvedAt: found.at };
    return refuse('permissions.unknown_request', `No permission request for call ${callId}.`);
  }

  /**
   * Settles a request once through the broker and tells its adapters at once (they mirror
   * agentState, drop the push and grant rules); ends the call on every outcome but allow. `closingSeq` is the `seq` of the
   * record that closes the request in the stream; for outcomes without one, the call's end.
   */
  settle(
    entry: PendingRequest,
    decision: PermissionDecision,
    closingSeq?: Promise<number | undefined>,
  ): boolean {
    const decided = this.decide(entry, decision, closingSeq);
    decided?.complete()();
    return decided !== undefined;
  }

  /**
   * Ends `entry` when nothing answers it: its request was never stored (`appended` failed: nobody
   * can answer it), one of `signals` aborted (cancelled), or its deadline passed (`policy`).
   */
  follow(
    entry: PendingRequest,
    appended: Delivery,
    signals: readonly AbortSignal[],
    policy: TimeoutPolicy,
  ): void {
    appended.catch((error: unknown) => this.fail(entry, error));
    for (const signal of signals) {
      entry.watch(signal, () =>
        this.settle(entry, cancelledDecision('cancel', 'The request was cancelled.')),
      );
    }
    if (policy.timeoutMs === undefined) return;
    entry.startTimer(policy.timeoutMs, () => this.settle(entry, timeoutDecision(policy)));
  }

  /** The pending request whose `permission-request` record has this id, if any. */
  lookupRecord(recordId: string): PendingRequest | undefined {
    return this.deps.broker.pendingRequests().find((r) => r.recordId === recordId);
  }

  /**
   * Takes `decision` for a request if nothing took one first (see {@link PermissionBroker.decide});
   * `complete` then releases it and ends the call on every outcome but allow, and returns what tells
   * the adapters. Without `closingSeq`, the request closes in the stream with the record `complete`
   * names, or the call's end.
   */
  decide(
    entry: PendingRequest,
    decision: PermissionDecision,
    closingSeq?: Promise<number | undefined>,
  ): GateDecision | undefined {
    let closeWith!: (seq: Promise<number | undefined>) => void;
    const closing =
      closingSeq ?? new Promise<number | undefined>((resolve) => (closeWith = (s) => void s.then(resolve)));
    const decided = this.deps.broker.decide(entry, decision, closing);
    if (!decided) return undefined;
    return {
      complete: (outcome = {}) => {
        const announce = decided.release({
          ...(outcome.answer ? { answer: outcome.answer } : {}),
          ...(outcome.decision ? { decision: outcome.decision } : {}),
        });
        const final = decided.settled.decision;
        let end: Delivery | undefined;
        if (final.outcome !== 'allow') {
          const error = final.outcome === 'cancelled' ? CANCELLED : (final.message ?? 'Denied.');
          this.deps.safely(() => (end = entry.call.end({ error })));
        }
        if (closingSeq === undefined)
          closeWith(outcome.closedBy ?? (end ? seqOf(end) : Promise.resolve(undefined)));
        return announce;
      },
    };
  }

  /**
   * Rejects a request whose `permission-request` could not be stored: nothing may run, and the
   * call ends with an error (docs/permissions.md, "What a request does").
   */
  fail(entry: PendingRequest, error: unknown): void {
    const decision = cancelledDecision('cancel', 'The permission request could not be stored.');
    if (!this.deps.broker.fail(entry, decision, error)) return;
    this.deps.logger.warn('permission request not stored', {
      callId: entry.call.callId,
      error: String(error),
    });
    this.deps.safely(() => entry.call.end({ error: 'permission request not stored' }));
  }

  /**
   * Re-decides the other pending requests by policy (after a grant or a user mode change). Each one
   * that now resolves is closed in the stream by the agent's settled note.
   */
  reevaluate(except: string | undefined): void {
    for (const entry of this.deps.broker.pendingRequests()) {
      if (entry.call.callId === except) continue;
      const decision = this.deps.policy.decide(entry.call);
      if (!decision) continue;
      let note: Delivery | undefined;
      this.deps.safely(() => {
        note = entry.call.note(`${PERMISSION_SETTLED_PREFIX}${decision.message ?? decision.outcome}`);
      });
      this.settle(entry, decision, note ? seqOf(note) : undefined);
    }
  }

  /** Remembers `decision` for a call that never had a request, and ends the call cancelled. */
  close(call: GatedCall, decision: PermissionDecision): PermissionDecision {
    this.deps.broker.remember(call.callId, {
      toolName: call.toolName,
      args: call.args,
      options: [],
      decision,
      recordId: undefined,
    });
    this.deps.safely(() => call.end({ error: CANCELLED }));
    return decision;
  }
}
