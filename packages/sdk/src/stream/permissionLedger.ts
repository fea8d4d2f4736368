/**
 * Text that starts the agent's `service` note closing a permission request it decided without an
 * answer (a rule granted meanwhile, a mode change), written inside the request's call. v2 has no
 * message for this, so the note is how the stream records it (docs/permissions.md, "One
 * arbitration").
 */
export const PERMISSION_SETTLED_PREFIX = 'Permission request settled: ';

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
  readonly #open = new Map<string, LedgerEntry<M>>();
  readonly #ended = new Set<string>();
  readonly #latest = new Map<string, LedgerEntry<M>>();
  #read = 0;

  /** Every request seen, in stream order. */
  get entries(): readonly LedgerEntry<M>[] {
    return this.#entries;
  }

  /** The open request of a call, if any. */
  openRequest(callId: string): LedgerEntry<M> | undefined {
    return this.#open.get(callId);
  }

  /** The requests still taking answers, in the order they were made. */
  openRequests(): IterableIterator<LedgerEntry<M>> {
    return this.#open.values();
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
      if (!Array.isArray(message.options)) return;
      this.close(callId, 'superseded');
      // A request for a call that already ended is never open.
      const closed = this.#ended.has(callId) ? 'ended' : undefined;
      const entry: LedgerEntry<M> = {
        request: message,
        answer: undefined,
        proposed: undefined,
        answerIndex: undefined,
        closed,
      };
      this.#entries.push(entry);
      this.#latest.set(callId, entry);
      if (!closed) this.#open.set(callId, entry);
    } else if (message.type === 'permission-response' && message.role === 'user') {
      const entry = this.#open.get(callId);
      if (!entry || !answers(entry.request, message)) return;
      if (typeof message.via === 'string') {
        entry.answer = message;
        entry.answerIndex = this.#read - 1;
        this.close(callId, 'answered');
      } else {
        entry.proposed ??= message;
      }
    } else if (message.type === 'tool-call-end' && message.role === 'agent') {
      this.#ended.add(callId);
      this.close(callId, 'ended');
    }
  }

  private applyNote(message: M): void {
    if (typeof message !== 'object' || message === null) return;
    if (message.type !== 'service' || message.role !== 'agent' || typeof message.parentId !== 'string')
      return;
    if (typeof message.text === 'string' && message.text.startsWith(PERMISSION_SETTLED_PREFIX)) {
      this.close(message.parentId, 'settled');
    }
  }

  private close(callId: string, why: LedgerClose): void {
    const entry = this.#open.get(callId);
    if (!entry) return;
    entry.closed = why;
    this.#open.delete(callId);
  }
}

/** True when `response` answers `request`: one of its options, and the same `requestId` if both carry one. */
function answers(request: LedgerMessage, response: LedgerMessage): boolean {
  if (typeof response.optionId !== 'string') return false;
  if (typeof response.requestId === 'string' && typeof request.requestId === 'string') {
    if (response.requestId !== request.requestId) return false;
  }
  return request.options?.some((o) => o.id === response.optionId) ?? false;
}

/** Folds `messages` into a ledger. */
export function ledgerOf<M extends LedgerMessage>(messages: Iterable<M>): PermissionLedger<M> {
  const ledger = new PermissionLedger<M>();
  for (const message of messages) ledger.apply(message);
  return ledger;
}
