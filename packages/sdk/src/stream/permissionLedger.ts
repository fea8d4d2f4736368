import { Arbiter } from './arbiter.js';
import type { Ruling } from './arbiter.js';

/**
 * Text that starts the agent's `service` note closing a permission request it decided without an
 * answer (a rule granted meanwhile, a mode change), written inside the request's call. v2 has no
 * message for this, so the note is how the stream records it (docs/permissions.md, "One
 * arbitration").
 */
export const PERMISSION_SETTLED_PREFIX = 'Permission request settled: ';

/**
 * Text that starts the agent's `service` note saying it applied the user's own
 * `permission-response` record, followed by that record's id, written inside the request's call.
 * The user's record stays the one response of the request; the note is the agent's confirmation
 * (docs/permissions.md, "One arbitration").
 */
export const PERMISSION_APPLIED_PREFIX = 'Permission answer applied: ';

/**
 * Text that starts the note a call writes when it runs on an answer given to a request a dead
 * process left (docs/recovery.md, "Resuming a call"), followed by that answer's record id and the
 * request's.
 */
export const PERMISSION_CARRIED_PREFIX = 'Permission answer carried over: ';

/**
 * True for the agent's notes about permission answers (applied, settled, carried over): sealed
 * records the ledger reads, naming record ids. A display shows the call's answer in words instead
 * and leaves the note out (docs/permissions.md, "One arbitration").
 */
export function isPermissionNote(text: string): boolean {
  return (
    text.startsWith(PERMISSION_APPLIED_PREFIX) ||
    text.startsWith(PERMISSION_SETTLED_PREFIX) ||
    text.startsWith(PERMISSION_CARRIED_PREFIX)
  );
}

/** Options of a {@link PermissionLedger}. */
export interface LedgerOptions {
  /**
   * Which records are the agent's own (its seal checks out, docs/permissions.md, "The agent's own
   * records"). When given, a `permission-request`, a response with `via` and the agent's notes
   * count only if trusted; a response with `via` that is not trusted is a user's answer like any
   * other. Without it (a display of the stream), every record is taken as written.
   */
  readonly trusted?: (message: LedgerMessage) => boolean;
}

/**
 * The fields of a v2 message the ledger reads (`docs/protocol.md`: `permission-request` from the
 * agent, `permission-response` from the user, `tool-call-end`, `service`); other messages and
 * fields are skipped.
 */
export interface LedgerMessage {
  readonly type: string;
  readonly role: string;
  readonly id?: string;
  readonly time?: number;
  readonly callId?: string;
  readonly requestId?: string;
  readonly parentId?: string;
  readonly toolName?: string;
  readonly args?: unknown;
  readonly options?: readonly { readonly id: string; readonly kind: string }[];
  readonly optionId?: string;
  readonly via?: string;
  readonly updatedInput?: unknown;
  readonly text?: string;
  readonly seal?: string;
}

/** How a request stopped taking answers. */
export type LedgerClose = 'answered' | 'ended' | 'settled' | 'superseded';

/** One `permission-request` and what the stream says about it. */
export interface LedgerEntry<M extends LedgerMessage = LedgerMessage> {
  readonly request: M;
  /**
   * The authoritative answer: the first user `permission-response` with `via` (the agent's record
   * of the answer it applied, whatever channel brought it) after the request and before it closed.
   */
  answer: M | undefined;
  /** The first valid user answer without `via`: an input the agent had not confirmed (yet). */
  proposed: M | undefined;
  /** Position of {@link LedgerEntry.answer} among the messages read, to order what it granted. */
  answerIndex: number | undefined;
  /** Set once the request takes no more answers. */
  closed: LedgerClose | undefined;
  /** True when no earlier request was made for the same call: an answer without `requestId` counts only then. */
  readonly first: boolean;
  /** The user answers to it so far, by record id (what an applied note may name). */
  readonly answers: Map<string, M>;
}

/**
 * The one arbitration of permission answers, as a fold over the stream (docs/permissions.md, "One
 * arbitration"). The live gate and a replay after a restart both follow it:
 *
 * - a request opens at its `permission-request`; an answer counts only after it (one appended
 *   before its request is never applied) and only while it is open;
 * - an answer counts only if it names one of the request's options;
 * - the agent records every answer it applies as a user `permission-response` with `via`, at the
 *   moment it applies it; the first such record is the decision, and nothing later changes it;
 * - a request closes with that record, with its call's `tool-call-end`, with the agent's
 *   {@link PERMISSION_SETTLED_PREFIX settled note}, or with a newer request for the same call.
 *
 * A user answer without `via` is an input: the agent confirms it with its own record if it applies
 * it. Another client's record that claims `via` is an answer like any other: it counts only while
 * the request is open, live as on replay.
 */
export class PermissionLedger<M extends LedgerMessage = LedgerMessage> {
  readonly #entries: LedgerEntry<M>[] = [];
  readonly #requests = new Arbiter<LedgerEntry<M>, RecordAnswer<M>, RecordDecision<M>, false>(judgeRecord);
  readonly #ended = new Set<string>();
  readonly #latest = new Map<string, LedgerEntry<M>>();
  readonly #requested = new Set<string>();
  readonly #trusted: (message: M) => boolean;
  #read = 0;

  constructor(options: LedgerOptions = {}) {
    this.#trusted = options.trusted ?? (() => true);
  }

  /** Every request seen, in stream order. */
  get entries(): readonly LedgerEntry<M>[] {
    return this.#entries;
  }

  /** The open request of a call, if any. */
  openRequest(callId: string): LedgerEntry<M> | undefined {
    return this.#requests.open(callId);
  }

  /** The requests still taking answers, in the order they were made. */
  openRequests(): IterableIterator<LedgerEntry<M>> {
    return this.#requests.pending().values();
  }

  /** The latest request of a call, open or closed. */
  latest(callId: string): LedgerEntry<M> | undefined {
    return this.#latest.get(callId);
  }

  /** Reads one message. */
  apply(message: M): void {
    this.#read++;
    if (typeof message !== 'object' || message === null || typeof message.callId !== 'string') {
      this.applyNote(message);
      return;
    }
    const callId = message.callId;
    if (message.type === 'permission-request' && message.role === 'agent') {
      if (!Array.isArray(message.options) || !this.#trusted(message)) return;
      this.decide(callId, { close: 'superseded' });
      const entry: LedgerEntry<M> = {
        request: message,
        answer: undefined,
        proposed: undefined,
        answerIndex: undefined,
        // A request for a call that already ended is never open.
        closed: this.#ended.has(callId) ? 'ended' : undefined,
        first: !this.#requested.has(callId),
        answers: new Map(),
      };
      this.#requested.add(callId);
      this.#entries.push(entry);
      this.#latest.set(callId, entry);
      if (!entry.closed) this.#requests.ask(callId, entry);
    } else if (message.type === 'permission-response' && message.role === 'user') {
      const entry = this.#requests.open(callId);
      if (!entry) return;
      if (typeof message.via === 'string' && this.#trusted(message)) {
        this.decide(callId, { answer: message, index: this.#read - 1 });
      } else if (answers(entry, message)) {
        entry.proposed ??= message;
        if (typeof message.id === 'string' && !entry.answers.has(message.id))
          entry.answers.set(message.id, message);
      }
    } else if (message.type === 'tool-call-end' && message.role === 'agent') {
      this.#ended.add(callId);
      this.decide(callId, { close: 'ended' });
    }
  }

  /** Hands one record's answer to the arbiter, and writes what it decided into the entry. */
  private decide(callId: string, given: RecordAnswer<M>): void {
    const verdict = this.#requests.decide(callId, given);
    if (verdict.status !== 'decided') return;
    const { item: entry, decision } = verdict;
    entry.closed = decision.closed;
    if (decision.answer) {
      entry.answer = decision.answer;
      entry.answerIndex = decision.index;
    }
  }

  private applyNote(message: M): void {
    if (typeof message !== 'object' || message === null) return;
    if (message.type !== 'service' || message.role !== 'agent' || typeof message.parentId !== 'string')
      return;
    if (typeof message.text !== 'string' || !this.#trusted(message)) return;
    if (message.text.startsWith(PERMISSION_SETTLED_PREFIX)) {
      this.decide(message.parentId, { close: 'settled' });
    } else if (message.text.startsWith(PERMISSION_APPLIED_PREFIX)) {
      const entry = this.#requests.open(message.parentId);
      const answer = entry?.answers.get(message.text.slice(PERMISSION_APPLIED_PREFIX.length).trim());
      if (answer) this.decide(message.parentId, { answer, index: this.#read - 1 });
    }
  }
}

/** What a record hands the arbiter: the agent's record of an answer, or a close. */
type RecordAnswer<M> = { readonly answer: M; readonly index: number } | { readonly close: LedgerClose };

/** What a record decided: how the request closed, and the answer when one did. */
interface RecordDecision<M> {
  readonly closed: LedgerClose;
  readonly answer?: M;
  readonly index?: number;
}

/** A close always counts; an answer only if it answers the request (an option it offered, naming it). */
function judgeRecord<M extends LedgerMessage>(
  entry: LedgerEntry<M>,
  given: RecordAnswer<M>,
): Ruling<RecordDecision<M>, false> {
  if ('close' in given) return { decision: { closed: given.close } };
  if (!answers(entry, given.answer)) return { refusal: false };
  return { decision: { closed: 'answered', answer: given.answer, index: given.index } };
}

/**
 * True when `response` answers the request of `entry`: one of its options, and it names the
 * request's record (`requestId`), or names none and the request is its call's first.
 */
function answers(entry: LedgerEntry, response: LedgerMessage): boolean {
  if (typeof response.optionId !== 'string') return false;
  if (response.requestId !== undefined ? response.requestId !== entry.request.id : !entry.first) return false;
  return entry.request.options?.some((o) => o.id === response.optionId) ?? false;
}

/** Folds `messages` into a ledger. */
export function ledgerOf<M extends LedgerMessage>(
  messages: Iterable<M>,
  options: LedgerOptions = {},
): PermissionLedger<M> {
  const ledger = new PermissionLedger<M>(options);
  for (const message of messages) ledger.apply(message);
  return ledger;
}
