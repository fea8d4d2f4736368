import { Subject } from 'rxjs';
import type { Observable } from 'rxjs';
import { asyncIterableOf } from '../ports/asyncIterable.js';
import type { IterateOptions } from '../ports/asyncIterable.js';
import type { PermissionOption } from '../protocol/sessionMessage.js';
import type { PermissionDecision } from '../stream/plugins.js';
import type { PendingRequest } from './pendingRequest.js';

/** The answer that settled a request, as the agent recorded it. */
export interface AppliedAnswer {
  readonly option: PermissionOption;
  /** The agent's record of it (a user `permission-response` with `via`), when it could be appended. */
  readonly record: { readonly id: string; readonly time: number } | undefined;
  /** The arguments that run, when the user edited them. */
  readonly updatedInput?: Readonly<Record<string, unknown>>;
}

/** What the broker keeps of a settled request: enough to answer late answers and to check their order. */
export interface SettledRequest {
  readonly callId: string;
  readonly toolName: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly options: readonly PermissionOption[];
  readonly decision: PermissionDecision;
  readonly at: number;
  /** `seq` of the request record (undefined for calls decided without one, or when it was not stored). */
  readonly requestSeq: Promise<number | undefined>;
  /**
   * `seq` of the first record the agent appended when it settled the request: its record of the
   * answer, the call's `tool-call-end`, or its settled note (docs/permissions.md, "One arbitration").
   */
  readonly closingSeq: Promise<number | undefined>;
  /** Id of the agent's record of the answer it applied. */
  readonly recordId: string | undefined;
}

/** What happens to requests, for the adapters around the broker and for hosts (`gate.events$`). */
export type BrokerEvent =
  | { readonly kind: 'requested'; readonly request: PendingRequest }
  | {
      readonly kind: 'settled';
      readonly request: PendingRequest;
      readonly settled: SettledRequest;
      /** The user's answer, when one settled it (not a rule, the mode, a timeout or a cancellation). */
      readonly answer?: AppliedAnswer;
    };

/** A request whose decision is taken ({@link PermissionBroker.decide}) but not yet released. */
export interface DecidedRequest {
  /** What is kept of it; later answers get `already_resolved` with its decision. */
  readonly settled: SettledRequest;
  /**
   * Releases the waiter, once, with the agent's record of the answer (`answer.record`, appended by
   * now). `decision` replaces the decision taken when it could not be carried out (its record could
   * not be appended): the gate fails closed. Returns what tells the adapters and hosts (the
   * `settled` event, once): the caller runs it when what follows the answer may run
   * (docs/permissions.md, "What follows an answer").
   */
  release(outcome?: { answer?: AppliedAnswer; decision?: PermissionDecision }): () => void;
}

/** How many settled requests are remembered; older ones are forgotten (later answers get `permissions.unknown_request`). */
export const MAX_SETTLED_REQUESTS = 10_000;

const NO_SEQ: Promise<number | undefined> = Promise.resolve(undefined);

/**
 * The arbitration of the permission gate: the pending requests, "the first valid answer wins"
 * (a request settles once), and the events the adapters follow (the agentState mirror, the delayed
 * push, the session-rule grants). Memory is bounded: the last {@link MAX_SETTLED_REQUESTS} settled
 * requests are kept.
 */
export class PermissionBroker {
  private readonly pending = new Map<string, PendingRequest>();
  private readonly settledRequests = new Map<string, SettledRequest>();
  private readonly subject = new Subject<BrokerEvent>();

  /**
   * Requests made and settled, in the order it happens: `requested` synchronously, `settled` when
   * the settling caller tells the adapters (at once, or after the RPC's answer for an answer by RPC).
   */
  readonly events$: Observable<BrokerEvent> = this.subject.asObservable();

  /** {@link PermissionBroker.events$} as an async iterable, until `signal` aborts. */
  events(options: IterateOptions = {}): AsyncGenerator<BrokerEvent> {
    return asyncIterableOf(this.events$, options);
  }

  constructor(private readonly maxSettled: number = MAX_SETTLED_REQUESTS) {}

  /** Call ids of the requests waiting for an answer, in request order. */
  get pendingCallIds(): readonly string[] {
    return [...this.pending.keys()];
  }

  /** The requests waiting for an answer. */
  pendingRequests(): readonly PendingRequest[] {
    return [...this.pending.values()];
  }

  /** The pending request of a call, else what is remembered of its settled one. */
  lookup(callId: string): PendingRequest | SettledRequest | undefined {
    return this.pending.get(callId) ?? this.settledRequests.get(callId);
  }

  /** Adds a request that waits for an answer. */
  open(request: PendingRequest): void {
    this.pending.set(request.call.callId, request);
    this.subject.next({ kind: 'requested', request });
  }

  /**
   * Settles a request that was never stored (its `permission-request` delivery failed), unless a
   * decision was taken first: its wait rejects with `error`, and `decision` is what is kept.
   * Returns what is kept, or undefined when it was already settled.
   */
  fail(request: PendingRequest, decision: PermissionDecision, error: unknown): SettledRequest | undefined {
    if (!request.fail(error)) return undefined;
    const settled = this.keep(request, decision, undefined, undefined);
    this.subject.next({ kind: 'settled', request, settled });
    return settled;
  }

  /**
   * Takes `decision` for a pending request if nothing took one first: from now on it is settled
   * for every later answer (`already_resolved`). Its waiter hears of it at `release`, once the
   * caller has recorded the decision, and the adapters when the caller runs what `release` returns
   * (after the RPC's answer, docs/permissions.md, "What follows an answer"). Returns undefined when
   * it was already taken.
   */
  decide(
    request: PendingRequest,
    decision: PermissionDecision,
    closingSeq?: Promise<number | undefined>,
  ): DecidedRequest | undefined {
    if (!request.claim()) return undefined;
    let settled = this.keep(request, decision, closingSeq, undefined);
    let released = false;
    const nothing = (): void => undefined;
    return {
      get settled() {
        return settled;
      },
      release: (outcome = {}) => {
        if (released) return nothing;
        released = true;
        const recordId = outcome.answer?.record?.id;
        if (outcome.decision || recordId !== undefined) {
          settled = this.keep(request, outcome.decision ?? settled.decision, settled.closingSeq, recordId);
        }
        request.resolve(settled.decision);
        const event: BrokerEvent = {
          kind: 'settled',
          request,
          settled,
          ...(outcome.answer ? { answer: outcome.answer } : {}),
        };
        let announced = false;
        return () => {
          if (announced) return;
          announced = true;
          this.subject.next(event);
        };
      },
    };
  }

  private keep(
    request: PendingRequest,
    decision: PermissionDecision,
    closingSeq: Promise<number | undefined> | undefined,
    recordId: string | undefined,
  ): SettledRequest {
    const call = request.call;
    this.pending.delete(call.callId);
    return this.remember(call.callId, {
      toolName: call.toolName,
      args: call.args,
      options: request.options,
      decision,
      requestSeq: request.requestSeq,
      closingSeq: closingSeq ?? NO_SEQ,
      recordId,
    });
  }

  /** Remembers a decision taken without a pending request (by policy, or closing a dead process's request). */
  remember(
    callId: string,
    fields: Omit<SettledRequest, 'callId' | 'at' | 'requestSeq' | 'closingSeq'> &
      Partial<Pick<SettledRequest, 'requestSeq' | 'closingSeq'>>,
  ): SettledRequest {
    const settled: SettledRequest = {
      callId,
      at: Date.now(),
      requestSeq: NO_SEQ,
      closingSeq: NO_SEQ,
      ...fields,
    };
    this.settledRequests.delete(callId);
    this.settledRequests.set(callId, settled);
    while (this.settledRequests.size > this.maxSettled) {
      const oldest = this.settledRequests.keys().next().value;
      if (oldest === undefined) break;
      this.settledRequests.delete(oldest);
    }
    return settled;
  }

  /** Stops the events. */
  complete(): void {
    this.subject.complete();
  }
}
