import type { Logger } from '../logger.js';
import type { PermissionOption, PermissionResponseMessage } from '../protocol/sessionMessage.js';
import type { GatedCall, GateWriter } from '../stream/gatePorts.js';
import type { PermissionDecision } from '../stream/plugins.js';
import type { Answer } from './answers.js';
import type { AppliedAnswer, SettledRequest } from './broker.js';
import { cancelledDecision, decisionFromOption } from './decision.js';
import type { GatePolicy } from './gatePolicy.js';
import type { ModeControl } from './modeControl.js';
import type { PendingRequest } from './pendingRequest.js';
import { describePolicyResult } from '../policy/policy.js';
import { frozenArgs } from '../stream/frozenArgs.js';
import { PERMISSION_APPLIED_PREFIX } from '../stream/permissionLedger.js';
import type { RespondResult } from './respondResult.js';
import { refuse } from './respondResult.js';

const NOT_RECORDED = 'The decision could not be recorded in the stream.';

/** A decision taken for a pending request, to complete once it is recorded. */
export interface GateDecision {
  /**
   * Releases the waiter and ends the call unless allowed; `decision` replaces the decision taken
   * (failing closed), `closedBy` is the `seq` of the record that closes the request. Returns what
   * tells the adapters (the agentState mirror, the push, the rule grants), for the caller to run
   * once what follows the answer may run.
   */
  complete(outcome?: {
    answer?: AppliedAnswer;
    decision?: PermissionDecision;
    closedBy?: Promise<number | undefined>;
  }): () => void;
}

/** A decision carried out: whether its record was appended, and what tells the adapters. */
interface Carried {
  readonly recorded: boolean;
  readonly announce: () => void;
}

/** What answering needs of its gate: the requests and their settlement. */
export interface GateSettlement {
  /** The pending request of a call, or the typed result for a settled or unknown one. */
  lookup(callId: string): PendingRequest | RespondResult;
  /** The pending request whose `permission-request` record has this id, if any. */
  lookupRecord(recordId: string): PendingRequest | undefined;
  /** Takes `decision` for a request if nothing took one first; `complete` then carries it out. */
  decide(
    entry: PendingRequest,
    decision: PermissionDecision,
    closingSeq?: Promise<number | undefined>,
  ): GateDecision | undefined;
  /** Takes and carries out `decision` at once; false when something else took the request first. */
  settle(
    entry: PendingRequest,
    decision: PermissionDecision,
    closingSeq?: Promise<number | undefined>,
  ): boolean;
}

/** Everything an {@link Answering} works with. */
export interface AnsweringDeps {
  readonly gate: GateSettlement;
  readonly policy: GatePolicy;
  readonly modes: ModeControl;
  readonly writer: GateWriter;
  readonly logger: Logger;
  /** The host's check of edited arguments (`validateUpdatedInput`). */
  readonly validateUpdatedInput:
    ((toolName: string, input: Readonly<Record<string, unknown>>) => boolean) | undefined;
  /** Runs a stream write whose failure must not break the gate. */
  readonly safely: (write: () => unknown) => void;
}

/** Runs a task at once: what the channels other than the RPC do with what follows an answer. */
export function runNow(task: () => void): void {
  task();
}

/**
 * Validates the answers every channel brings and applies the first valid one of a request
 * (docs/permissions.md, "One arbitration"): the option must be offered, edited arguments must pass
 * the deny rules and the host's check, a mode switch must stay within the ceiling. The decision is
 * then recorded in the stream and its waiter released; the adapters follow
 * (docs/permissions.md, "What follows an answer"). Nothing here throws, and no failure approves a
 * call.
 */
export class Answering {
  constructor(private readonly deps: AnsweringDeps) {}

  /**
   * Validates and applies one answer; the first valid one takes the decision at once (later
   * answers get `already_resolved`), records it in the stream and releases the waiter before this
   * returns. What follows for the adapters runs through `after`: the RPC channel hands it to its
   * registry, which runs it once the answer is sent; the other channels run it at once.
   */
  apply(answer: Answer, after: (task: () => void) => void = runNow): RespondResult {
    try {
      const found = this.deps.gate.lookup(answer.callId);
      if ('status' in found) return found;
      const unbound = this.unbound(found, answer);
      if (unbound) return unbound;
      const option = found.options.find((o) => o.id === answer.optionId);
      if (!option)
        return refuse(
          'permissions.invalid_option',
          `Option ${answer.optionId} is not offered for call ${answer.callId}.`,
        );
      if (answer.kind !== undefined && answer.kind !== option.kind) {
        return refuse(
          'permissions.invalid_option',
          `Option ${option.id} is a ${option.kind} option, not ${answer.kind}.`,
        );
      }
      const updated = this.checkUpdatedInput(found, answer);
      if (updated && 'status' in updated) return updated;
      if (answer.mode !== undefined && !this.deps.modes.remoteChangeAllowed(answer.mode)) {
        return refuse(
          'permissions.mode_not_allowed',
          `Mode ${answer.mode} is above the ceiling ${this.deps.modes.ceiling}.`,
        );
      }
      const decision: PermissionDecision = {
        ...decisionFromOption(
          option,
          answer.via,
          answer.message ?? (option.kind.startsWith('reject') ? 'Denied by the user.' : undefined),
        ),
        ...(updated ? { updatedInput: updated.value } : {}),
        ...(answer.interrupt ? { interrupt: true } : {}),
      };
      const decided = this.deps.gate.decide(
        found,
        decision,
        answer.record ? Promise.resolve(answer.record.seq) : undefined,
      );
      if (!decided) {
        const now = this.deps.gate.lookup(answer.callId);
        return 'status' in now
          ? now
          : refuse('permissions.invalid_payload', 'The answer could not be applied.');
      }
      const carried = this.carryOut(found, decided, answer, option, updated?.value);
      after(carried.announce);
      // Fail closed, and say so: the request was cancelled, its tool does not run.
      if (!carried.recorded) return refuse('permissions.invalid_payload', NOT_RECORDED);
      return { status: 'applied', callId: answer.callId, decision };
    } catch (error) {
      // Fail closed: an internal error never approves anything.
      this.deps.logger.error('permission answer failed', { error: String(error) });
      return refuse('permissions.invalid_payload', 'The answer could not be applied.');
    }
  }

  /**
   * A user answer for a request already settled: `already_resolved` (nothing for the gate's own
   * record coming back). Only the gate's sealed records decide, so a later record, whatever its
   * `via` claims, changes nothing, live or on rebuild.
   */
  lateAnswer(settled: SettledRequest, message: PermissionResponseMessage): RespondResult | undefined {
    if (settled.recordId === message.id) return undefined;
    return {
      status: 'already_resolved',
      callId: settled.callId,
      decision: settled.decision,
      resolvedAt: settled.at,
    };
  }

  /**
   * An answer from another client must name the request it answers (`requestId`, or the record id
   * as the legacy body's `id`), unless the request is its call's first: an answer for an earlier
   * request of the same call, or from before a restart, is refused. The local program answers
   * what it sees waiting, so its answers need not name one.
   */
  private unbound(entry: PendingRequest, answer: Answer): RespondResult | undefined {
    if (answer.via === 'local') return undefined;
    if (answer.requestId !== undefined) {
      if (answer.requestId === entry.recordId) return undefined;
      return refuse(
        'permissions.unknown_request',
        `The answer names request ${answer.requestId.slice(0, 64)}, not the request waiting for call ${answer.callId}.`,
      );
    }
    if (entry.firstForCall) return undefined;
    return refuse(
      'permissions.unknown_request',
      `Call ${answer.callId} has had more than one permission request: the answer must name the one it answers (requestId ${entry.recordId}).`,
    );
  }

  /**
   * Carries out the decision an answer took: appends the agent's record of it (unless the answer
   * is such a record already; appended is queued in this process, its delivery follows), then
   * releases the waiter, then applies the answer's mode switch and interrupt, so that the tool
   * and the turn, once they go on, see them. The record precedes whatever the tool writes once
   * it runs. When the record cannot be appended, the request is cancelled instead: no tool runs on
   * a decision the stream does not hold (`recorded` false). Returns what tells the adapters.
   */
  private carryOut(
    entry: PendingRequest,
    decided: GateDecision,
    answer: Answer,
    option: PermissionOption,
    updatedInput: Readonly<Record<string, unknown>> | undefined,
  ): Carried {
    let announce: () => void;
    try {
      const record = answer.record
        ? this.confirmRecord(entry, answer.record)
        : this.recordResponse(entry, option, answer.via, updatedInput);
      if (!record) return notRecorded(decided);
      announce = decided.complete({
        answer: { option, record: record.message, ...(updatedInput ? { updatedInput } : {}) },
        closedBy: record.seq,
      });
    } catch (error) {
      this.deps.logger.error('permission decision could not be carried out', { error: String(error) });
      return notRecorded(decided);
    }
    if (answer.mode !== undefined) this.deps.modes.set(answer.mode, 'user');
    if (answer.interrupt) entry.call.stopTurn(new Error('The user denied the tool call and asked to stop.'));
    return { recorded: true, announce };
  }

  /**
   * The user's edited arguments, merged over the request's: refused unless they are an object that
   * passes the deny rules (the policy must not deny the call as edited, nor find a deny rule it
   * cannot check) and the host's validation.
   */
  private checkUpdatedInput(
    entry: PendingRequest,
    answer: Answer,
  ): { value: Readonly<Record<string, unknown>> } | RespondResult | undefined {
    if (answer.updatedInput === undefined) return undefined;
    const input = answer.updatedInput;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return refuse('permissions.invalid_updated_input', 'updatedInput must be an object.');
    }
    let merged: Readonly<Record<string, unknown>>;
    try {
      // Frozen before anything judges it: what the policy and the host check is what runs.
      merged = frozenArgs({ ...entry.call.args, ...this.unredacted(entry.call, input) }, 'updatedInput');
    } catch {
      return refuse('permissions.invalid_updated_input', 'updatedInput must be plain JSON.');
    }
    const verdict = this.deps.policy.evaluate(entry.call, merged);
    const unchecked =
      verdict.reason.kind === 'undecidable' &&
      verdict.reason.rules.some((r) => r.list === 'deny' || r.list === 'session-deny');
    if (verdict.verdict === 'deny' || unchecked) {
      return refuse(
        'permissions.invalid_updated_input',
        `The edited input is refused: ${describePolicyResult(verdict)}`,
      );
    }
    const check = this.deps.validateUpdatedInput;
    if (check && !check(entry.call.toolName, merged)) {
      return refuse(
        'permissions.invalid_updated_input',
        `The edited input is not valid for ${entry.call.toolName}.`,
      );
    }
    return { value: merged };
  }

  /**
   * The user's edited arguments with every value they left as the request showed it (redacted)
   * put back to the real one: an edit of one field must not hand the tool a marker for another.
   */
  private unredacted(call: GatedCall, input: Record<string, unknown>): Record<string, unknown> {
    if (call.redact === false) return input;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) {
      const real = call.args[key];
      const shown = JSON.stringify(this.deps.writer.redactValue(real));
      const wasRedacted = real !== undefined && shown !== JSON.stringify(real);
      out[key] = wasRedacted && JSON.stringify(value) === shown ? real : value;
    }
    return out;
  }

  /**
   * Confirms the user's own `permission-response` record with the gate's sealed note naming it,
   * inside the call: the user's record stays the request's one response, and the note is what a
   * rebuild trusts (docs/permissions.md, "One arbitration").
   */
  private confirmRecord(
    entry: PendingRequest,
    answered: { readonly id: string; readonly time: number },
  ): { message: { id: string; time: number }; seq: Promise<number | undefined> } | undefined {
    let note: Promise<number | undefined> | undefined;
    this.deps.safely(() => {
      note = seqOf(entry.call.note(`${PERMISSION_APPLIED_PREFIX}${answered.id}`));
    });
    return note ? { message: { id: answered.id, time: answered.time }, seq: note } : undefined;
  }

  /**
   * Appends the agent's record of the answer it applies: the user's `permission-response` with
   * `via` (and the arguments that run, when edited). Replay reads these records.
   */
  private recordResponse(
    entry: PendingRequest,
    option: PermissionOption,
    via: Answer['via'],
    updatedInput: Readonly<Record<string, unknown>> | undefined,
  ): { message: { id: string; time: number }; seq: Promise<number | undefined> } | undefined {
    let recorded: { message: { id: string; time: number }; seq: Promise<number | undefined> } | undefined;
    this.deps.safely(() => {
      const { message, delivery } = this.deps.writer.appendMessage({
        role: 'user',
        type: 'permission-response',
        callId: entry.call.callId,
        optionId: option.id,
        via,
        requestId: entry.recordId,
        ...(updatedInput !== undefined ? { updatedInput: { ...updatedInput } } : {}),
      });
      recorded = { message: { id: message.id, time: message.time }, seq: seqOf(delivery) };
    });
    return recorded;
  }
}

/** Cancels a decision whose record could not be appended; returns what tells the adapters. */
function notRecorded(decided: GateDecision): Carried {
  return {
    recorded: false,
    announce: decided.complete({ decision: cancelledDecision('cancel', NOT_RECORDED) }),
  };
}

/** The `seq` a delivery settles with, or undefined when it failed. */
export function seqOf(delivery: Promise<{ readonly seq: number }>): Promise<number | undefined> {
  return delivery.then(
    (d) => d.seq,
    () => undefined,
  );
}
