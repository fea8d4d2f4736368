import { Subject } from 'rxjs';
import type { Observable } from 'rxjs';
import { safely } from '../errors.js';
import type { Logger } from '../logger.js';
import type {
  PermissionOption,
  PermissionRequestMessage,
  PermissionResponseMessage,
} from '../protocol/sessionMessage.js';
import { Arbiter } from '../stream/arbiter.js';
import type { GatedCall, GateWriter } from '../stream/gatePorts.js';
import { PERMISSION_APPLIED_PREFIX, PERMISSION_SETTLED_PREFIX } from '../stream/permissionLedger.js';
import type { PermissionDecision } from '../stream/plugins.js';
import type { Delivery } from '../stream/types.js';
import type { AgentStateMirror } from './agentStateMirror.js';
import type { Decided } from './answerRule.js';
import { judgeAnswer } from './answerRule.js';
import type { Answer, GateAnswer } from './answers.js';
import { answerFromRecord } from './answers.js';
import { cancelledDecision } from './decision.js';
import type { AppliedAnswer, GateRequestView, RequestEvent } from './gateEvents.js';
import type { GatePolicy } from './gatePolicy.js';
import type { ModeChange, ModeControl, ModeSource } from './modeControl.js';
import type { RequestItem } from './request.js';
import { liveRequest, recordedRequest } from './request.js';
import { ORPHAN_ERROR } from './recovery.js';
import type { InterruptedRequest } from './interrupted.js';
import { PERMISSION_CARRIED_PREFIX } from './interrupted.js';
import { canonicalArgs } from '../policy/callArgs.js';
import type { AnswerResult } from '../stream/answerResult.js';
import { refuse } from './refuse.js';
import type { TimeoutPolicy } from './timeouts.js';
import { timeoutDecision } from './timeouts.js';

const CANCELLED = 'cancelled';
const NOT_RECORDED = 'The decision could not be recorded in the stream.';
const NO_SEQ: Promise<number | undefined> = Promise.resolve(undefined);

/** Runs a task at once: what follows an answer of every channel but the RPC. */
export function runNow(task: () => void): void {
  task();
}

/** A live request, as the gate holds one while it waits. */
type LiveItem = RequestItem & { readonly live: NonNullable<RequestItem['live']> };

/** What the requests work with: the gate's writer, policy, modes and options. */
export interface GateRequestsDeps {
  readonly writer: GateWriter;
  readonly logger: Logger;
  readonly policy: GatePolicy;
  readonly modes: ModeControl;
  readonly mirror: AgentStateMirror | undefined;
  /** `full` notes every automatic decision in the stream. */
  readonly audit: 'none' | 'full' | undefined;
  /** Only for {@link judgeAnswer}, the arbiter's judge: an edit the host refuses never wins. */
  readonly validateUpdatedInput:
    ((toolName: string, input: Readonly<Record<string, unknown>>) => boolean) | undefined;
}

/**
 * The gate's requests and how each ends (docs/permissions.md, "One arbitration"). Every answer,
 * whatever channel parsed it, is handed to {@link GateRequests.answer}: the arbiter decides (the
 * first valid answer wins), then {@link GateRequests.answer} carries the decision out in the one
 * order. Nothing here throws for bad input, and no failure allows a call.
 */
export class GateRequests {
  private readonly arbiter: Arbiter<RequestItem, GateAnswer, Decided, AnswerResult<'gate'>>;
  private readonly subject = new Subject<RequestEvent>();
  /** The requests whose answer was carried over already (each answers one run). */
  private readonly carriedFrom = new Set<string>();
  /** Decisions carried over to calls that resume interrupted ones, until their first request. */
  private readonly carried = new Map<
    string,
    { decision: PermissionDecision; recordId: string; requestId: string }
  >();

  /** Requests as they are made and settled, for the adapters and `gate.events$()`. */
  events$(): Observable<RequestEvent> {
    return this.subject.asObservable();
  }

  constructor(private readonly deps: GateRequestsDeps) {
    this.arbiter = new Arbiter((item, given) => judgeAnswer(item, given, deps));
  }

  /** Call ids of the requests waiting for an answer, in request order. */
  get pendingCallIds(): string[] {
    return this.arbiter.pendingIds();
  }

  /** `undefined` once decided, so a second answer cannot reopen the call. */
  open(callId: string): RequestItem | undefined {
    return this.arbiter.open(callId);
  }

  /**
   * Opens the request of `call`, whose `permission-request` was appended as `appended` with the
   * record id `recordId`, and follows what may end it unanswered: its record not stored, one of
   * `signals`, its deadline. Resolves as `requestPermission()` does.
   */
  ask(
    call: GatedCall,
    request: {
      readonly options: readonly PermissionOption[];
      readonly recordId: string;
      readonly firstForCall: boolean;
      readonly appended: Delivery;
      readonly signals: readonly AbortSignal[];
      readonly timeouts: TimeoutPolicy;
    },
  ): Promise<PermissionDecision> {
    const { recordId, appended } = request;
    const item = liveRequest(call, request.options, {
      recordId,
      firstForCall: request.firstForCall,
      requestSeq: seqOf(appended),
    });
    this.arbiter.ask(call.callId, item);
    this.subject.next({ kind: 'requested', request: this.viewOf(item, recordId) });
    const gate = (decision: PermissionDecision) => ({ by: 'gate' as const, decision });
    appended.catch((error: unknown) =>
      this.answer(call.callId, {
        ...gate(cancelledDecision('cancel', 'The permission request could not be stored.')),
        unstored: error,
      }),
    );
    for (const signal of request.signals)
      item.live.wait.watch(signal, () =>
        this.answer(call.callId, gate(cancelledDecision('cancel', 'The request was cancelled.'))),
      );
    const { timeoutMs } = request.timeouts;
    if (timeoutMs !== undefined)
      item.live.wait.startTimer(timeoutMs, () =>
        this.answer(call.callId, gate(timeoutDecision(request.timeouts))),
      );
    return item.live.wait.promise;
  }

  /**
   * Decides a call that asks nobody: the policy decided it (`policy`: noted when audited, shown
   * as denied in agentState), or it cannot be asked (cancelled). It is remembered, so a later
   * answer to it gets `already_resolved`, and its call ends unless allowed.
   */
  decideAtOnce(call: GatedCall, decision: PermissionDecision, by?: 'policy'): Promise<PermissionDecision> {
    this.arbiter.ask(
      call.callId,
      liveRequest(call, [], { recordId: undefined, firstForCall: false, requestSeq: NO_SEQ }),
    );
    this.arbiter.decide(call.callId, { by: 'gate', decision });
    if (by === 'policy') {
      const { callId, toolName, args } = call;
      if (this.deps.audit === 'full')
        safely(this.deps.logger, 'gate write', () => call.note(decision.message ?? decision.outcome));
      // Today's app shows the call as denied only with an agentState entry (docs/wire.md §6.6).
      if (decision.outcome !== 'allow')
        void this.deps.mirror?.completed(callId, decision, {}, { toolName, args, createdAt: Date.now() });
    }
    if (decision.outcome !== 'allow') {
      const error = by === 'policy' ? (decision.message ?? 'Denied by policy.') : CANCELLED;
      safely(this.deps.logger, 'gate write', () => call.end({ error }));
    }
    return Promise.resolve(decision);
  }

  /**
   * Hands one answer to the arbiter and carries out what it decided, in the one order
   * (docs/permissions.md, "What follows an answer"):
   * 1. the record: the agent's record of a person's answer, or the settled note of a decision by
   *    policy; when it cannot be appended, the decision becomes a cancellation (fail closed);
   * 2. the waiter: `requestPermission()` resolves, so the tool may start once this step is over;
   *    the call ends unless allowed; a person's mode switch and stop apply;
   * 3. the adapters and `gate.events$()`, through `after` (the RPC runs it once its reply is sent).
   */
  answer(
    callId: string,
    given: GateAnswer,
    after: (task: () => void) => void = runNow,
  ): AnswerResult<'gate'> {
    const verdict = this.arbiter.decide(callId, given);
    if (verdict.status === 'refused') return verdict.refusal;
    if (verdict.status === 'unknown')
      return refuse('permissions.unknown_request', `No permission request for call ${callId}.`);
    if (verdict.status === 'already_decided')
      return {
        status: 'already_resolved',
        callId,
        decision: verdict.decision.decision,
        resolvedAt: verdict.at,
      };
    const { item } = verdict;
    const live = item.live;
    if (!live) return this.carryOutRecorded(item, verdict.decision, given);
    let decision = verdict.decision.decision;
    let applied: AppliedAnswer | undefined;
    if (given.by === 'person') {
      const record = this.record(live.call, item, given.answer, decision.updatedInput);
      // Fail closed: no tool runs on a decision the stream does not hold.
      if (!record) decision = cancelledDecision('cancel', NOT_RECORDED);
      else
        applied = {
          option: verdict.decision.option!,
          record,
          ...(decision.updatedInput ? { updatedInput: decision.updatedInput } : {}),
        };
    } else if (given.by === 'gate' && given.note !== undefined) {
      safely(this.deps.logger, 'gate write', () =>
        live.call.note(`${PERMISSION_SETTLED_PREFIX}${given.note}`),
      );
    }
    this.release(item as LiveItem, decision, given);
    if (given.by === 'person' && applied) this.follow(given.answer, live.call);
    // What is kept of it now names its record, or says that it failed closed.
    if (given.by === 'person') this.arbiter.amend(callId, { decision, recordId: applied?.record?.id });
    if (item.recordId !== undefined) {
      const event: RequestEvent = {
        kind: 'settled',
        request: this.viewOf(item as LiveItem, item.recordId),
        settled: {
          callId,
          toolName: item.toolName,
          args: item.args,
          options: item.options,
          decision,
          at: this.arbiter.decided(callId)?.at ?? Date.now(),
          recordId: applied?.record?.id,
        },
        ...(applied ? { answer: applied } : {}),
      };
      after(() => this.subject.next(event));
    }
    if (given.by === 'person' && !applied) return refuse('permissions.invalid_payload', NOT_RECORDED);
    return { status: 'applied', callId, decision };
  }

  /**
   * Takes up a request a dead process left open (docs/recovery.md, "Interrupted calls"): the
   * people's answers given since that process fell silent are held against it, in stream order,
   * and the first valid one decides it, recorded by the note that confirms it inside the old call;
   * without one it is cancelled. Either way the old call ends (its tool never ran in this
   * process), and the host is told what was asked and answered.
   */
  takeUp(
    request: PermissionRequestMessage,
    firstForCall: boolean,
    answers: readonly PermissionResponseMessage[],
    acceptRemote: boolean,
  ): InterruptedRequest {
    const item = recordedRequest(request, firstForCall);
    this.arbiter.ask(item.callId, item);
    let answered: InterruptedRequest['answer'];
    for (const message of acceptRemote ? answers : []) {
      const result = this.answer(item.callId, { by: 'person', answer: answerFromRecord(message) });
      if (result.status !== 'applied') continue;
      answered = { record: message, decision: result.decision };
      break;
    }
    if (!answered)
      this.arbiter.decide(item.callId, {
        by: 'record',
        decision: cancelledDecision('shutdown', 'The agent restarted before the request was answered.'),
      });
    safely(this.deps.logger, 'gate write', () =>
      this.deps.writer.append({
        role: 'agent',
        type: 'tool-call-end',
        turn: request.turn,
        callId: request.callId,
        ...(request.parentId !== undefined ? { parentId: request.parentId } : {}),
        ...(request.agentId !== undefined ? { agentId: request.agentId } : {}),
        error: ORPHAN_ERROR,
      }),
    );
    return { request, ...(answered ? { answer: answered } : {}) };
  }

  /**
   * Lets `call` run on the answer a person gave to a request a dead process left, once: only an
   * allow, and only when `call` shows exactly the tool and arguments that request showed
   * (docs/recovery.md, "Resuming a call"). Returns whether it will.
   */
  carryOver(
    call: Pick<GatedCall, 'callId' | 'toolName' | 'args' | 'redact'>,
    from: InterruptedRequest,
  ): boolean {
    const decision = from.answer?.decision;
    if (decision?.outcome !== 'allow' || call.toolName !== from.request.toolName) return false;
    const shown = call.redact === false ? call.args : this.deps.writer.redactValue(call.args);
    const asked = canonicalArgs(from.request.args ?? {});
    if (asked === undefined || canonicalArgs(shown) !== asked) return false;
    // One answer, one run: a request's allow is carried over to one call only.
    if (this.carriedFrom.has(from.request.id)) return false;
    this.carriedFrom.add(from.request.id);
    this.carried.set(call.callId, { decision, recordId: from.answer!.record.id, requestId: from.request.id });
    return true;
  }

  /** Forgets the decision carried over to a call that will not run (ended, stopped, disposed). */
  dropCarried(callId: string): void {
    this.carried.delete(callId);
  }

  /**
   * The decision carried over to `call` by {@link GateRequests.carryOver}, taken once: recorded by
   * a note inside the call that names the answer, then remembered like any decision.
   */
  takeCarried(
    call: GatedCall,
    refusal: (decision: PermissionDecision) => PermissionDecision | undefined,
  ): Promise<PermissionDecision> | undefined {
    const carried = this.carried.get(call.callId);
    if (!carried) return undefined;
    this.carried.delete(call.callId);
    // Deny rules are absolute, and the mode now in force may refuse what it would never ask about:
    // an old allow runs nothing they deny (docs/recovery.md, "Resuming a call").
    let denied: PermissionDecision | undefined;
    try {
      denied = refusal(carried.decision);
    } catch {
      denied = cancelledDecision('cancel', 'The carried-over answer could not be checked.');
    }
    if (denied) return this.decideAtOnce(call, denied, denied.outcome === 'deny' ? 'policy' : undefined);
    let noted = false;
    safely(this.deps.logger, 'gate write', () => {
      call.note(`${PERMISSION_CARRIED_PREFIX}${carried.recordId} (request ${carried.requestId})`);
      noted = true;
    });
    // Fail closed: no tool runs on a decision the stream does not hold.
    const decision = noted ? carried.decision : cancelledDecision('cancel', NOT_RECORDED);
    return this.decideAtOnce(call, decision);
  }

  /**
   * Changes the mode as `change` says, and re-decides the pending requests after a user's change
   * (a lower mode may now deny them, a higher one allow them). Returns the typed refusal, if any.
   */
  afterModeChange(change: ModeChange, source: ModeSource): AnswerResult<'gate'> | undefined {
    if ('refused' in change) return change.refused;
    if (change.changed && source === 'user') this.reevaluate(undefined);
    return undefined;
  }

  /** Re-decides the other pending requests by policy (after a grant or a user mode change). */
  reevaluate(except: string | undefined): void {
    for (const item of this.arbiter.pending()) {
      if (item.callId === except || !item.live) continue;
      const decision = this.deps.policy.decide(item.live.call);
      if (decision)
        this.answer(item.callId, { by: 'gate', decision, note: decision.message ?? decision.outcome });
    }
  }

  /**
   * Ends every pending request with `decision` (the gate stops); with `failure`, each waiter
   * rejects with it instead (the session was taken over, docs/writer-lease.md).
   */
  endAll(decision: PermissionDecision, failure?: unknown): void {
    for (const item of this.arbiter.pending())
      this.answer(item.callId, {
        by: 'gate',
        decision,
        ...(failure !== undefined ? { unstored: failure } : {}),
      });
    this.subject.complete();
  }

  /** Remembers a request the stream holds from an earlier process, ended as `decision`: a late answer is refused. */
  remember(item: RequestItem, decision: PermissionDecision): void {
    this.arbiter.ask(item.callId, item);
    this.arbiter.decide(item.callId, { by: 'record', decision });
  }

  /**
   * A user's record for a request that is not open: `already_resolved`, or nothing for the gate's
   * own record coming back.
   */
  lateAnswer(callId: string, recordId: string): AnswerResult<'gate'> | undefined {
    const kept = this.arbiter.decided(callId);
    if (!kept) return refuse('permissions.unknown_request', `No permission request for call ${callId}.`);
    if (kept.decision.recordId === recordId) return undefined;
    return { status: 'already_resolved', callId, decision: kept.decision.decision, resolvedAt: kept.at };
  }

  /** True when `callId` has a kept decision. */
  isDecided(callId: string): boolean {
    return this.arbiter.decided(callId) !== undefined;
  }

  /**
   * The open request an RPC body names, by its call id or its record's id (the legacy body's `id`
   * is what agentState keys requests by), or the typed result for a settled or unknown one.
   */
  lookup(id: string): RequestItem | AnswerResult<'gate'> {
    const open = this.arbiter.pending().find((r) => r.recordId === id && r.live) ?? this.arbiter.open(id);
    if (open) return open;
    const kept = this.arbiter.decided(id);
    if (kept)
      return {
        status: 'already_resolved',
        callId: id,
        decision: kept.decision.decision,
        resolvedAt: kept.at,
      };
    return refuse('permissions.unknown_request', `No permission request for call ${id}.`);
  }

  /**
   * Appends the agent's record of the answer that decided `request`, so that a request has exactly
   * one `permission-response` (docs/permissions.md, "One arbitration"): for an answer by the RPC or
   * the local program, the user-role `permission-response` with `via`, `requestId`, and the
   * arguments that run when edited; for the person's own record in the stream, a `Permission
   * answer applied: <record id>` note inside the call, which keeps theirs the one response. The
   * writer seals either. Undefined when the writer refused it: the decision is then not carried out.
   */
  private record(
    call: GatedCall,
    request: RequestItem,
    answer: Answer,
    updatedInput: Readonly<Record<string, unknown>> | undefined,
  ): { readonly id: string; readonly time: number } | undefined {
    try {
      return safely(this.deps.logger, 'answer record', () => {
        if (answer.record) {
          call.note(`${PERMISSION_APPLIED_PREFIX}${answer.record.id}`);
          return { id: answer.record.id, time: answer.record.time };
        }
        const { message } = this.deps.writer.appendMessage({
          role: 'user',
          type: 'permission-response',
          callId: request.callId,
          optionId: answer.optionId,
          via: answer.via,
          ...(request.recordId !== undefined ? { requestId: request.recordId } : {}),
          ...(updatedInput !== undefined ? { updatedInput: { ...updatedInput } } : {}),
        });
        return { id: message.id, time: message.time };
      });
    } catch (error) {
      // Not an SdkError: a fault of the writer's, not a closed call, which safely() passes on. It
      // is caught here all the same, because the decision is already taken: failing closed (a
      // cancellation) lets the waiter go, where a throw would leave it waiting for ever.
      this.deps.logger.error('permission decision could not be recorded', { error: String(error) });
      return undefined;
    }
  }

  /**
   * Carries out a decision for a request read from the stream (no waiter, no call of this
   * process): a person's answer is confirmed by the applied note inside the old call.
   */
  private carryOutRecorded(item: RequestItem, decided: Decided, given: GateAnswer): AnswerResult<'gate'> {
    const request = item.recorded;
    if (given.by !== 'person' || !given.answer.record || !request)
      return { status: 'applied', callId: item.callId, decision: decided.decision };
    let noted = false;
    safely(this.deps.logger, 'gate write', () => {
      this.deps.writer.append({
        role: 'agent',
        type: 'service',
        turn: request.turn,
        parentId: request.callId,
        ...(request.agentId !== undefined ? { agentId: request.agentId } : {}),
        text: `${PERMISSION_APPLIED_PREFIX}${given.answer.record!.id}`,
      });
      noted = true;
    });
    if (!noted) {
      this.arbiter.amend(item.callId, { decision: cancelledDecision('cancel', NOT_RECORDED) });
      return refuse('permissions.invalid_payload', NOT_RECORDED);
    }
    this.arbiter.amend(item.callId, { ...decided, recordId: given.answer.record.id });
    return { status: 'applied', callId: item.callId, decision: decided.decision };
  }

  /** Lets the waiter of a live request go, and ends its call on every outcome but allow. */
  private release(item: LiveItem, decision: PermissionDecision, given: GateAnswer): void {
    const { live } = item;
    if (given.by === 'gate' && given.unstored !== undefined) {
      // Never stored: nobody can answer it, so its waiter hears why.
      live.wait.fail(given.unstored);
      this.deps.logger.warn('permission request not stored', {
        callId: item.callId,
        error: String(given.unstored),
      });
      safely(this.deps.logger, 'gate write', () => live.call.end({ error: 'permission request not stored' }));
      return;
    }
    live.wait.release(decision);
    if (decision.outcome !== 'allow') {
      const error = decision.outcome === 'cancelled' ? CANCELLED : (decision.message ?? 'Denied.');
      safely(this.deps.logger, 'gate write', () => live.call.end({ error }));
    }
  }

  /** What a person's answer asks besides the decision: a mode switch, a stop of the turn. */
  private follow(answer: Answer, call: GatedCall): void {
    if (answer.mode !== undefined) this.afterModeChange(this.deps.modes.set(answer.mode, 'user'), 'user');
    if (answer.interrupt) call.stopTurn(new Error('The user denied the tool call and asked to stop.'));
  }

  private viewOf(item: LiveItem, recordId: string): GateRequestView {
    const arbiter = this.arbiter;
    return {
      call: item.live.call,
      options: item.options,
      createdAt: item.createdAt,
      recordId,
      get settled() {
        return arbiter.open(item.callId) !== item;
      },
    };
  }
}

/** The `seq` a delivery settles with, or undefined when it failed. */
function seqOf(delivery: Promise<{ readonly seq: number }>): Promise<number | undefined> {
  return delivery.then(
    (d) => d.seq,
    () => undefined,
  );
}
