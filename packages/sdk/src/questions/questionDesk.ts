import { Subject } from 'rxjs';
import type { Observable } from 'rxjs';
import { SdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { DelayedPush } from '../ports/delayedPush.js';
import type { RpcRegistry } from '../ports/rpc.js';
import type { PushNotifier, SessionStateStore } from '../ports/sessionState.js';
import { newId } from '../protocol/ids.js';
import type {
  QuestionAnswer,
  QuestionEndMessage,
  QuestionMessage,
  SessionMessage,
} from '../protocol/sessionMessage.js';
import type { PluginHost } from '../stream/plugins.js';
import type {
  AskOptions,
  AskQuestion,
  AskResult,
  AskTarget,
  QuestionRuntime,
} from '../stream/questionPorts.js';
import { questionLedgerOf } from '../stream/questionLedger.js';
import type { Delivery, MessageDraft, StreamLifecycleEvent } from '../stream/types.js';
import { checkAnswers } from './answerCheck.js';
import type { QuestionAnswerResult, QuestionRefusal } from './answerResult.js';
import { refusal } from './answerResult.js';
import { CommunicationsMirror } from './communicationsMirror.js';
import { replyFromRpcBody } from './communicationRpc.js';
import type { EndQuestion } from './pendingQuestion.js';
import { PendingQuestion } from './pendingQuestion.js';
import { checkTimeout, questionsOf } from './questionSpec.js';

/** Options of {@link QuestionDesk.create}. */
export interface QuestionDeskOptions {
  /** The writer the desk installs on (`scope.ask()` reaches it), and appends recovered questions' ends to. */
  readonly writer: PluginHost & { append(draft: MessageDraft): Delivery };
  /** Registers the `communication` RPC today's app answers by. */
  readonly rpc?: RpcRegistry;
  /** Mirrors questions into `agentState.communications` for today's app. */
  readonly state?: SessionStateStore;
  /** Sends the `question` push when a question is still waiting after `pushDelayMs` (default 500). */
  readonly push?: PushNotifier;
  /** How long a question waits before its push goes out; default 500 ms. */
  readonly pushDelayMs?: number;
  /** The push's body; default "Session". */
  readonly sessionTitle?: string;
  /** The session's stream so far: pending questions of a previous process are taken up again. */
  readonly history?: readonly SessionMessage[];
  /** Whether remote answers (the RPC) are accepted right now; default always. */
  readonly acceptRemoteAnswers?: () => boolean;
  /** Where the desk reports failed mirror writes and pushes; default silent. */
  readonly logger?: Logger;
}

/** What happens to questions, in order (`desk.events$`). */
export type QuestionEvent =
  | { readonly kind: 'asked'; readonly question: QuestionMessage; readonly recovered: boolean }
  | { readonly kind: 'ended'; readonly question: QuestionMessage; readonly result: AskResult };

/** A person's reply from the local program: the answers, or a dismissal. */
export type LocalReply =
  { readonly answers: Readonly<Record<string, Partial<QuestionAnswer>>> } | { readonly status: 'cancelled' };

/** How many ended questions are remembered for late answers. */
const MAX_ENDED = 10_000;

/**
 * Holds the questions an agent asks until the person answers (docs/questions.md). The first valid
 * answer wins, by the `communication` RPC of today's app or the local program
 * ({@link QuestionDesk.respond}); every other answer gets a typed {@link QuestionAnswerResult}. A
 * question follows the turn's stop like a permission request, and ends exactly once in the
 * stream (`question-end`), so a reader, a replay and a restart know how it ended.
 */
export class QuestionDesk implements QuestionRuntime {
  private readonly pendingById = new Map<string, PendingQuestion>();
  private readonly endedById = new Map<string, QuestionEndMessage['status']>();
  private readonly subject = new Subject<QuestionEvent>();
  private readonly mirror: CommunicationsMirror | undefined;
  private readonly pushes: DelayedPush | undefined;
  private readonly logger: Logger;
  private readonly teardown: Array<() => void> = [];
  private disposed = false;

  /** Questions asked and ended, in the order it happens. */
  readonly events$: Observable<QuestionEvent> = this.subject.asObservable();

  private constructor(private readonly options: QuestionDeskOptions) {
    this.logger = options.logger ?? silentLogger;
    this.mirror = options.state ? new CommunicationsMirror(options.state, this.logger) : undefined;
    this.pushes = options.push
      ? new DelayedPush(options.push, options.pushDelayMs ?? 500, this.logger)
      : undefined;
  }

  /** Creates a desk, takes up the pending questions of `history`, and installs it on the writer. */
  static create(options: QuestionDeskOptions): QuestionDesk {
    const desk = new QuestionDesk(options);
    desk.start();
    return desk;
  }

  /** The questions waiting for an answer, in the order asked. */
  get pending(): readonly QuestionMessage[] {
    return [...this.pendingById.values()].map((entry) => entry.message);
  }

  /** See `Scope.ask`. */
  ask(target: AskTarget, input: readonly AskQuestion[], options: AskOptions = {}): Promise<AskResult> {
    const questions = questionsOf(input);
    const timeoutMs = checkTimeout(options.timeoutMs);
    const questionId = options.id ?? newId();
    if (this.pendingById.has(questionId) || this.endedById.has(questionId))
      throw new SdkError('questions.invalid', `A question with id ${questionId} was asked already.`, {
        hint: 'leave options.id out for a fresh id',
      });
    if (this.disposed || target.signal.aborted) return Promise.resolve({ status: 'stopped', questionId });
    if (options.signal?.aborted) return Promise.resolve({ status: 'cancelled', questionId });
    const { message, delivery } = target.append({
      questionId,
      ...(options.title !== undefined ? { title: options.title } : {}),
      questions,
    });
    const entry = this.open(message, (content) => target.end(content), false);
    delivery.catch((error: unknown) => {
      // Never stored: nobody can answer it, so its waiter hears why.
      if (!entry.claim()) return;
      this.logger.warn('question not stored', { questionId, error: String(error) });
      this.close(entry, { status: 'stopped', questionId }, undefined, false);
      entry.reject(error);
    });
    entry.watch(target.signal, () => this.settle(entry, { status: 'stopped', questionId }));
    if (options.signal)
      entry.watch(options.signal, () => this.settle(entry, { status: 'cancelled', questionId }));
    if (timeoutMs !== undefined)
      entry.startTimer(timeoutMs, () => this.settle(entry, { status: 'timed_out', questionId }));
    return entry.promise;
  }

  /**
   * How a question ends, for a question a previous process asked (recovered from the stream) or
   * any pending one; undefined when no such question waits.
   */
  result(questionId: string): Promise<AskResult> | undefined {
    return this.pendingById.get(questionId)?.promise;
  }

  /** Answers (or dismisses) a pending question from the local program: a terminal prompt, a host UI. */
  respond(questionId: string, reply: LocalReply): QuestionAnswerResult {
    if (typeof reply !== 'object' || reply === null)
      return refusal('questions.invalid_answer', 'The reply must be an object.', questionId);
    const status = 'status' in reply ? reply.status : 'answered';
    return this.apply(questionId, status, 'answers' in reply ? reply.answers : undefined, 'local');
  }

  /** The `communication` RPC handler: today's app's `{id, kind, status, answers?}`. */
  handleRpc(body: unknown): QuestionAnswerResult {
    let allowed: boolean;
    try {
      allowed = this.options.acceptRemoteAnswers?.() ?? true;
    } catch {
      allowed = false;
    }
    if (!allowed) return refusal('questions.not_allowed', 'Remote answers are not accepted right now.');
    const reply = replyFromRpcBody(body);
    if ('code' in reply) return reply;
    return this.apply(reply.id, reply.status, reply.answers, 'rpc');
  }

  /** Ends every pending question `stopped` and releases channels, timers and listeners. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const entry of [...this.pendingById.values()])
      this.settle(entry, { status: 'stopped', questionId: entry.id });
    this.pushes?.cancelAll();
    this.subject.complete();
    for (const end of this.teardown.splice(0)) end();
  }

  /** Resolves when the agentState mirror has caught up (tests, orderly shutdown). */
  settled(): Promise<void> {
    return this.mirror?.settled() ?? Promise.resolve();
  }

  private apply(
    questionId: string,
    status: 'answered' | 'cancelled' | string,
    given: unknown,
    via: 'rpc' | 'local',
  ): QuestionAnswerResult {
    const entry = this.pendingById.get(questionId);
    if (!entry) {
      const ended = this.endedById.get(questionId);
      return ended
        ? refusal('questions.settled', `Question ${questionId} has ended (${ended}).`, questionId, ended)
        : refusal('questions.unknown', `No question ${questionId.slice(0, 64)} is waiting.`);
    }
    let result: AskResult;
    if (status === 'cancelled') result = { status: 'cancelled', questionId };
    else if (status === 'answered') {
      const answers = checkAnswers(questionId, entry.message.questions, given);
      if (isRefusal(answers)) return answers;
      result = { status: 'answered', questionId, answers, via };
    } else return refusal('questions.invalid_answer', 'status must be answered or cancelled.', questionId);
    if (!this.settle(entry, result, via)) {
      const ended = this.endedById.get(questionId) ?? 'stopped';
      return refusal('questions.settled', `Question ${questionId} has ended (${ended}).`, questionId, ended);
    }
    return { status: 'applied', questionId, result };
  }

  private open(message: QuestionMessage, end: EndQuestion, recovered: boolean): PendingQuestion {
    const entry = new PendingQuestion(message, end, Date.now(), recovered);
    this.pendingById.set(entry.id, entry);
    void this.mirror?.asked(message, entry.createdAt);
    this.pushes?.schedule(entry.id, {
      kind: 'question',
      title: 'Clarification needed',
      body: this.options.sessionTitle ?? 'Session',
      data: { questionId: entry.id, type: 'question' },
    });
    this.subject.next({ kind: 'asked', question: message, recovered });
    return entry;
  }

  /** Ends a question once: records its `question-end`, then releases the waiter. */
  private settle(entry: PendingQuestion, result: AskResult, via?: 'rpc' | 'local'): boolean {
    if (!entry.claim()) return false;
    this.close(entry, result, via, true);
    entry.resolve(result);
    return true;
  }

  private close(
    entry: PendingQuestion,
    result: AskResult,
    via: 'rpc' | 'local' | undefined,
    record: boolean,
  ): void {
    this.pendingById.delete(entry.id);
    this.remember(entry.id, result.status);
    if (record) {
      try {
        entry.end({
          questionId: entry.id,
          status: result.status,
          ...(result.status === 'answered' ? { answers: { ...result.answers } } : {}),
          ...(via !== undefined && result.status !== 'timed_out' && result.status !== 'stopped'
            ? { via }
            : {}),
        });
      } catch (error) {
        // The writer is closed: the stream keeps the question open, and a restart takes it up again.
        this.logger.debug('question end not appended', { questionId: entry.id, error: String(error) });
      }
    }
    void this.mirror?.ended(entry.message, entry.createdAt, result);
    this.pushes?.cancel(entry.id);
    this.subject.next({ kind: 'ended', question: entry.message, result });
  }

  private remember(questionId: string, status: QuestionEndMessage['status']): void {
    this.endedById.set(questionId, status);
    while (this.endedById.size > MAX_ENDED) {
      const oldest = this.endedById.keys().next().value;
      if (oldest === undefined) break;
      this.endedById.delete(oldest);
    }
  }

  private start(): void {
    const history = this.options.history ?? [];
    if (history.length > 0) {
      const ledger = questionLedgerOf(history);
      for (const [id, end] of ledger.ended) this.remember(id, end.status);
      const recovered = ledger.pending.map((message) =>
        this.open(message, (content) => this.options.writer.append(endDraft(message, content)), true),
      );
      void this.mirror?.reset(recovered.map((e) => ({ message: e.message, createdAt: e.createdAt })));
    }
    if (this.options.rpc)
      this.teardown.push(this.options.rpc.register('communication', (body) => this.handleRpc(body)));
    this.teardown.push(
      this.options.writer.install({ questions: this, onLifecycle: (event) => this.onLifecycle(event) }),
    );
  }

  private onLifecycle(event: StreamLifecycleEvent): void {
    if (event.kind === 'writer-closing') return this.dispose();
    for (const entry of [...this.pendingById.values()]) {
      const m = entry.message;
      const closes = event.kind === 'turn-closing' ? m.turn === event.turn : m.parentId === event.callId;
      if (closes) this.settle(entry, { status: 'stopped', questionId: entry.id });
    }
  }
}

function isRefusal(value: object): value is QuestionRefusal {
  return (value as { status?: unknown }).status === 'refused' && 'code' in value;
}

/** The `question-end` of a recovered question, stamped as its question was. */
function endDraft(message: QuestionMessage, content: Parameters<EndQuestion>[0]): MessageDraft {
  return {
    role: 'agent',
    type: 'question-end',
    turn: message.turn,
    ...(message.parentId !== undefined ? { parentId: message.parentId } : {}),
    ...(message.agentId !== undefined ? { agentId: message.agentId } : {}),
    ...content,
  };
}
