import type {
  PermissionRequestMessage,
  PermissionResponseMessage,
  PlanMessage,
  QuestionEndMessage,
  QuestionMessage,
  SessionMessage,
  ToolCallEndMessage,
  ToolCallStartMessage,
  TurnEndMessage,
  TurnEndStatus,
  TurnStartMessage,
} from '../protocol/sessionMessage.js';
import { isPermissionNote, ledgerOf, PermissionLedger } from './permissionLedger.js';
import { QuestionLedger } from './questionLedger.js';

/** A message shown as it is (text, service, media...). */
export interface FoldedMessage {
  readonly kind: 'message';
  readonly message: SessionMessage;
}

/**
 * State of a tool call as far as the stream tells. `denied`: it ended with an error after the
 * user chose a reject option (it never ran); `failed`: it ended with any other error.
 */
export type FoldedCallStatus = 'running' | 'awaiting-permission' | 'done' | 'denied' | 'failed' | 'cancelled';

/** Children of a call written by one subagent, under the title from the spawning call. */
export interface FoldedAgentGroup {
  readonly agentId: string;
  readonly title: string | undefined;
  readonly children: FoldedNode[];
}

/** A tool call with what happened inside it. */
export interface FoldedCall {
  readonly kind: 'call';
  readonly callId: string;
  readonly start: ToolCallStartMessage;
  end: ToolCallEndMessage | undefined;
  status: FoldedCallStatus;
  /**
   * The call's latest permission request and its answer: the agent's record of the answer it
   * applied, else the first valid user answer it has not confirmed yet (docs/permissions.md, "One
   * arbitration").
   */
  permission:
    | {
        request: PermissionRequestMessage;
        response: PermissionResponseMessage | undefined;
        /**
         * True once the agent confirmed `response` as the decision: its own record of an answer it
         * took (a response with `via`), or its note naming the user's own record.
         */
        confirmed?: boolean;
      }
    | undefined;
  /** Children by the same agent as the call (or by no subagent). */
  readonly children: FoldedNode[];
  /** Children by subagents, grouped by `agentId`. */
  readonly agents: FoldedAgentGroup[];
}

export type FoldedNode = FoldedMessage | FoldedCall;

/** A turn and its top-level content. */
export interface FoldedTurn {
  readonly kind: 'turn';
  readonly turn: string;
  start: TurnStartMessage | undefined;
  end: TurnEndMessage | undefined;
  status: 'open' | TurnEndStatus;
  readonly children: FoldedNode[];
}

/** The folded session: a timeline of turns and the messages outside turns. */
export interface FoldedSession {
  readonly timeline: ReadonlyArray<FoldedTurn | FoldedMessage>;
  /**
   * Permission requests still waiting for the user: open (no agent record of an answer, no
   * `tool-call-end`, no settled note) and with no valid user answer yet, in request order.
   */
  readonly pendingPermissions: readonly PermissionRequestMessage[];
  /**
   * The agent's plan as it stands: its latest `plan` message without `agentId` (each replaces the
   * one before; docs/protocol.md, "plan"), undefined until it writes one.
   */
  readonly plan: PlanMessage | undefined;
  /** Each subagent's latest plan, by `agentId`. */
  readonly agentPlans: ReadonlyMap<string, PlanMessage>;
  /**
   * Questions still waiting for the person (docs/questions.md): asked, with no `question-end`, in a
   * turn that has not ended, in the order asked.
   */
  readonly pendingQuestions: readonly QuestionMessage[];
  /** Ids of the user prompts the agent took (its `prompt-taken` marks): what a client shows as "seen". */
  readonly takenPrompts: ReadonlySet<string>;
  /** A question and how it ended (`end` undefined while it waits or when its turn ended first). */
  question(
    questionId: string,
  ): { question: QuestionMessage; end: QuestionEndMessage | undefined } | undefined;
  /** Looks up a call anywhere in the tree. */
  call(callId: string): FoldedCall | undefined;
  /** Looks up a turn. */
  turn(turnId: string): FoldedTurn | undefined;
}

/**
 * Builds the turn tree incrementally, one message at a time: turns, then tool calls, then children
 * by `parentId`, grouped by `agentId` under the spawning call's `agentTitle`. Each `apply` is O(1)
 * (maps by id), so a viewer can fold a long live stream as it arrives.
 */
export class SessionFold implements FoldedSession {
  private readonly items: Array<FoldedTurn | FoldedMessage> = [];
  private readonly turns = new Map<string, FoldedTurn>();
  private readonly calls = new Map<string, FoldedCall>();
  private readonly ledger = new PermissionLedger<SessionMessage>();
  private latestPlan: PlanMessage | undefined;
  private readonly plans = new Map<string, PlanMessage>();

  get plan(): PlanMessage | undefined {
    return this.latestPlan;
  }

  get agentPlans(): ReadonlyMap<string, PlanMessage> {
    return this.plans;
  }
  private readonly questions = new QuestionLedger();
  private readonly taken = new Set<string>();

  get takenPrompts(): ReadonlySet<string> {
    return this.taken;
  }

  get timeline(): ReadonlyArray<FoldedTurn | FoldedMessage> {
    return this.items;
  }

  get pendingPermissions(): readonly PermissionRequestMessage[] {
    return waiting(this.ledger);
  }

  get pendingQuestions(): readonly QuestionMessage[] {
    return this.questions.pending;
  }

  question(
    questionId: string,
  ): { question: QuestionMessage; end: QuestionEndMessage | undefined } | undefined {
    const question = this.questions.question(questionId);
    return question ? { question, end: this.questions.ending(questionId) } : undefined;
  }

  call(callId: string): FoldedCall | undefined {
    return this.calls.get(callId);
  }

  turn(turnId: string): FoldedTurn | undefined {
    return this.turns.get(turnId);
  }

  /** Adds one message to the tree. */
  apply(message: SessionMessage): void {
    this.ledger.apply(message);
    this.questions.apply(message);
    switch (message.type) {
      case 'turn-start':
        this.turnOf(message.turn).start = message;
        return;
      case 'turn-end': {
        const turn = this.turnOf(message.turn);
        turn.end = message;
        turn.status = message.status;
        return;
      }
      case 'tool-call-start': {
        const call: FoldedCall = {
          kind: 'call',
          callId: message.callId,
          start: message,
          end: undefined,
          status: 'running',
          permission: undefined,
          children: [],
          agents: [],
        };
        this.place(message, call);
        this.calls.set(message.callId, call);
        return;
      }
      case 'tool-call-end': {
        const call = this.calls.get(message.callId);
        if (!call) return this.place(message, { kind: 'message', message });
        call.end = message;
        call.status = endStatus(call, message);
        return;
      }
      case 'permission-request': {
        const call = this.calls.get(message.callId);
        if (call?.end) return; // a request after its call ended is never pending
        if (!call) return this.place(message, { kind: 'message', message });
        call.permission = { request: message, response: undefined };
        call.status = 'awaiting-permission';
        return;
      }
      case 'permission-response': {
        const call = this.calls.get(message.callId);
        if (!call?.permission) return this.place(message, { kind: 'message', message });
        this.answered(call);
        return;
      }
      case 'service':
        // The agent's notes about permission answers name record ids: the call's status says it in words.
        if (!isPermissionNote(message.text)) this.place(message, { kind: 'message', message });
        // The agent's note confirming the user's own answer makes that answer the decision.
        if (message.parentId !== undefined) {
          const call = this.calls.get(message.parentId);
          if (call?.permission) this.answered(call);
        }
        return;
      case 'prompt-taken':
        this.taken.add(message.promptId);
        return;
      case 'question-answer':
        // Kept by the question ledger; the question's end shows what the agent made of it.
        return;
      case 'plan':
        if (message.agentId === undefined) this.latestPlan = message;
        else this.plans.set(message.agentId, message);
        this.place(message, { kind: 'message', message });
        return;
      default:
        this.place(message, { kind: 'message', message });
    }
  }

  /** Takes the ledger's answer (else its first unconfirmed one) as the response of `call`'s request. */
  private answered(call: FoldedCall): void {
    const entry = this.ledger.latest(call.callId);
    if (!call.permission || entry?.request !== call.permission.request) return;
    const response = entry.answer ?? entry.proposed;
    if (response?.type !== 'permission-response') return;
    call.permission.response = response;
    call.permission.confirmed = entry.answer !== undefined;
    if (call.status === 'awaiting-permission') call.status = 'running';
  }

  private turnOf(turnId: string): FoldedTurn {
    let turn = this.turns.get(turnId);
    if (!turn) {
      turn = { kind: 'turn', turn: turnId, start: undefined, end: undefined, status: 'open', children: [] };
      this.turns.set(turnId, turn);
      this.items.push(turn);
    }
    return turn;
  }

  /** Puts a node under its parent call, else its turn, else on the timeline. */
  private place(message: SessionMessage, node: FoldedNode): void {
    const parent = message.parentId !== undefined ? this.calls.get(message.parentId) : undefined;
    if (parent) {
      const agentId = message.agentId;
      if (agentId === undefined || agentId === parent.start.agentId) {
        parent.children.push(node);
        return;
      }
      let group = parent.agents.find((g) => g.agentId === agentId);
      if (!group) {
        group = { agentId, title: parent.start.agentTitle, children: [] };
        parent.agents.push(group);
      }
      group.children.push(node);
      return;
    }
    if (message.turn !== undefined) {
      this.turnOf(message.turn).children.push(node);
      return;
    }
    this.items.push(node as FoldedMessage);
  }
}

/** How a call ended: done, cancelled, denied by the user's reject answer, or failed. */
function endStatus(call: FoldedCall, end: ToolCallEndMessage): FoldedCallStatus {
  if (end.error === undefined) return 'done';
  if (end.error === 'cancelled') return 'cancelled';
  const answer = call.permission?.response?.optionId;
  const chosen = call.permission?.request.options.find((o) => o.id === answer);
  return chosen?.kind === 'reject-once' || chosen?.kind === 'reject-always' ? 'denied' : 'failed';
}

/** Folds a list of messages into the turn tree and the pending permission set. */
export function fold(messages: Iterable<SessionMessage>): FoldedSession {
  const folded = new SessionFold();
  for (const message of messages) folded.apply(message);
  return folded;
}

/**
 * The permission requests still waiting for the user after `messages` (any prefix of a stream), as
 * {@link FoldedSession.pendingPermissions} counts them.
 */
export function foldPermissions(messages: Iterable<SessionMessage>): PermissionRequestMessage[] {
  return waiting(ledgerOf(messages));
}

function waiting(ledger: PermissionLedger<SessionMessage>): PermissionRequestMessage[] {
  const out: PermissionRequestMessage[] = [];
  for (const entry of ledger.openRequests()) {
    if (entry.proposed === undefined && entry.request.type === 'permission-request') out.push(entry.request);
  }
  return out;
}
