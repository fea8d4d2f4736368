import { Subject } from 'rxjs';
import type { Observable } from 'rxjs';
import { SdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { DelayedPush } from '../ports/delayedPush.js';
import { asyncIterableOf } from '../ports/asyncIterable.js';
import type { IterateOptions } from '../ports/asyncIterable.js';
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
import { Arbiter } from '../stream/arbiter.js';
import type { Ruling } from '../stream/arbiter.js';
import { questionLedgerOf } from '../stream/questionLedger.js';
import type { QuestionLedger } from '../stream/questionLedger.js';
import type { Delivery, MessageDraft, StreamLifecycleEvent } from '../stream/types.js';
import { checkAnswers } from './answerCheck.js';
import type { AnswerResult, QuestionRefusal } from '../stream/answerResult.js';
import { refusal } from './answerResult.js';
import { CommunicationsMirror } from './communicationsMirror.js';
import { replyFromRpcBody } from './communicationRpc.js';
import type { EndQuestion, PendingQuestion, QuestionOutcome, QuestionReply } from './pendingQuestion.js';
import { pendingQuestion } from './pendingQuestion.js';
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
  /**
   * Records other clients append, with their `seq`: a user `question-answer` after its question is
   * a person's answer (the viewer and the CLI write one, so it reaches an agent that answers no
   * RPC, docs/questions.md "Answering").
   */
  readonly incoming?: Observable<{ readonly message: SessionMessage; readonly seq: number }>;
  /** Whether remote answers (the RPC, the stream) are accepted right now; default always. */
  readonly acceptRemoteAnswers?: () => boolean;
  /** Where the desk reports failed mirror writes and pushes; default silent. */
  readonly logger?: Logger;
}

/** What happens to questions, in order (`desk.events$()`). */
export type QuestionEvent =
  | { readonly kind: 'asked'; readonly question: QuestionMessage; readonly recovered: boolean }
  | { readonly kind: 'ended'; readonly question: QuestionMessage; readonly result: AskResult };

/**
 * A question a dead process left waiting, as a successor's desk took it up (docs/recovery.md,
 * "Interrupted calls"): with the result of the answer a person gave while no agent was there, or
 * none (then it ended `stopped`, and the host may ask again).
 */
export interface InterruptedQuestion {
  readonly question: QuestionMessage;
  readonly result?: AskResult;
}

/** A person's reply from the local program: the answers, or a dismissal. */
export type LocalReply =
  { readonly answers: Readonly<Record<string, Partial<QuestionAnswer>>> } | { readonly status: 'cancelled' };

/**
 * Holds the questions an agent asks until the person answers (docs/questions.md). The first valid
 * answer wins, by the `communication` RPC of today's app or the local program
 * ({@link QuestionDesk.answer}), decided by the one arbiter of `stream/arbiter.ts`; every other
 * answer gets a typed `AnswerResult<'desk'>`. A question follows the turn's stop like a
 * permission request, and ends exactly once in the stream (`question-end`), so a reader, a replay
 * and a restart know how it ended.
 */
export class QuestionDesk implements QuestionRuntime {
  private readonly questions = new Arbiter<PendingQuestion, QuestionReply, QuestionOutcome, QuestionRefusal>(
    judgeReply,
  );
  private readonly subject = new Subject<QuestionEvent>();
  private readonly mirror: CommunicationsMirror | undefined;
  private readonly pushes: DelayedPush | undefined;
  private readonly logger: Logger;
  private readonly teardown: Array<() => void> = [];
  private disposed = false;

  /** The `seq` of each open question's record once stored: a stream answer counts only after it. */
  private readonly storedAt = new Map<string, Promise<number | undefined>>();
  private answeredMeanwhile: InterruptedQuestion[] = [];

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
    return this.questions.pending().map((entry) => entry.message);
  }

  /** See `Scope.ask`. */
  ask(target: AskTarget, input: readonly AskQuestion[], options: AskOptions = {}): Promise<AskResult> {
    const questions = questionsOf(input);
    const timeoutMs = checkTimeout(options.timeoutMs);
    const questionId = options.id ?? newId();
    if (this.questions.open(questionId) || this.questions.decided(questionId))
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
    this.storedAt.set(
      questionId,
      delivery.then(
        (d) => d.seq,
        () => undefined,
      ),
    );
    const end = (result: AskResult, unstored?: unknown): QuestionReply => ({
      by: 'desk',
      result,
      ...(unstored !== undefined ? { unstored } : {}),
    });
    delivery.catch((error: unknown) =>
      this.decide(questionId, end({ status: 'stopped', questionId }, error)),
    );
    entry.wait.watch(target.signal, () => this.decide(questionId, end({ status: 'stopped', questionId })));
    if (options.signal)
      entry.wait.watch(options.signal, () =>
        this.decide(questionId, end({ status: 'cancelled', questionId })),
      );
    if (timeoutMs !== undefined)
      entry.wait.startTimer(timeoutMs, () =>
        this.decide(questionId, end({ status: 'timed_out', questionId })),
      );
    return entry.wait.promise;
  }

  /**
   * How a question ends, for a question a previous process asked (recovered from the stream) or
   * any pending one; undefined when no such question waits.
   */
  result(questionId: string): Promise<AskResult> | undefined {
    return this.questions.open(questionId)?.wait.promise;
  }

  /** Questions asked and ended, in the order it happens, from the call on. */
  events$(): Observable<QuestionEvent> {
    return this.subject.asObservable();
  }

  /** {@link QuestionDesk.events$} as an async iterable, until `signal` aborts. */
  events(options: IterateOptions = {}): AsyncGenerator<QuestionEvent> {
    return asyncIterableOf(this.events$(), options);
  }

  /** Answers (or dismisses) a pending question from the local program: a terminal prompt, a host UI. */
  answer(questionId: string, reply: LocalReply): AnswerResult<'desk'> {
    if (typeof reply !== 'object' || reply === null)
      return refusal('questions.invalid_answer', 'The reply must be an object.', questionId);
    const status = 'status' in reply ? reply.status : 'answered';
    const answers = 'answers' in reply ? reply.answers : undefined;
    return this.decide(questionId, { by: 'person', status, answers, via: 'local' });
  }

  /** The `communication` RPC handler: today's app's `{id, kind, status, answers?}`. */
  handleRpc(body: unknown): AnswerResult<'desk'> {
    if (!this.remoteAllowed())
      return refusal('questions.not_allowed', 'Remote answers are not accepted right now.');
    const reply = replyFromRpcBody(body);
    if ('code' in reply) return reply;
    return this.decide(reply.id, { by: 'person', status: reply.status, answers: reply.answers, via: 'rpc' });
  }

  /**
   * Reads one record of the stream: a user `question-answer` is a person's answer, counted only
   * once its question's record is stored and only if it comes after it (`seq`). Resolves with what
   * it got (`undefined` for other records).
   */
  async handleStreamInput(input: {
    readonly message: SessionMessage;
    readonly seq: number;
  }): Promise<AnswerResult<'desk'> | undefined> {
    const message = input?.message;
    if (message?.type !== 'question-answer' || message.role !== 'user') return undefined;
    const asked = await this.storedAt.get(message.questionId);
    if (this.questions.open(message.questionId) && (asked === undefined || !(input.seq > asked)))
      return refusal(
        'questions.unknown',
        `The answer to question ${message.questionId.slice(0, 64)} was appended before its question.`,
      );
    if (!this.remoteAllowed())
      return refusal('questions.not_allowed', 'Remote answers are not accepted right now.');
    return this.decide(message.questionId, {
      by: 'person',
      status: message.status,
      answers: message.answers,
      via: 'stream',
    });
  }

  /**
   * The questions a dead process left waiting, as this desk took them up (docs/recovery.md,
   * "Interrupted calls"): those a person answered while no agent was there, with the result now
   * recorded, and those {@link QuestionDesk.endRecovered} ended unanswered.
   */
  get interrupted(): readonly InterruptedQuestion[] {
    return this.answeredMeanwhile;
  }

  /**
   * Ends, `stopped`, every question a previous process asked that is still waiting: a successor
   * that ends that process's turns calls it first (docs/recovery.md). They join
   * {@link QuestionDesk.interrupted}, unanswered.
   */
  endRecovered(): readonly InterruptedQuestion[] {
    const ended: InterruptedQuestion[] = [];
    for (const entry of this.questions.pending()) {
      if (!entry.recovered) continue;
      const questionId = entry.message.questionId;
      this.decide(questionId, { by: 'desk', result: { status: 'stopped', questionId } });
      ended.push({ question: entry.message });
    }
    this.answeredMeanwhile = [...this.answeredMeanwhile, ...ended];
    return ended;
  }

  /** Ends every pending question `stopped` and releases channels, timers and listeners. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const entry of this.questions.pending())
      this.decide(entry.message.questionId, {
        by: 'desk',
        result: { status: 'stopped', questionId: entry.message.questionId },
      });
    this.pushes?.cancelAll();
    this.subject.complete();
    for (const end of this.teardown.splice(0)) end();
  }

  /** Resolves when the agentState mirror has caught up (tests, orderly shutdown). */
  settled(): Promise<void> {
    return this.mirror?.settled() ?? Promise.resolve();
  }

  /** Hands one reply to the arbiter and carries out what it decided: the record, then the waiter. */
  private decide(questionId: string, given: QuestionReply): AnswerResult<'desk'> {
    const verdict = this.questions.decide(questionId, given);
    if (verdict.status === 'refused') return verdict.refusal;
    if (verdict.status === 'unknown')
      return refusal('questions.unknown', `No question ${questionId.slice(0, 64)} is waiting.`);
    if (verdict.status === 'already_decided') {
      const ended = verdict.decision.result.status;
      return refusal('questions.settled', `Question ${questionId} has ended (${ended}).`, questionId, ended);
    }
    const { item: entry, decision } = verdict;
    const { result, via } = decision;
    const unstored = given.by === 'desk' ? given.unstored : undefined;
    if (unstored !== undefined)
      this.logger.warn('question not stored', { questionId, error: String(unstored) });
    else this.record(entry, result, via);
    if (unstored !== undefined) entry.wait.fail(unstored);
    else entry.wait.release(result);
    void this.mirror?.ended(entry.message, entry.createdAt, result);
    this.pushes?.cancel(questionId);
    this.subject.next({ kind: 'ended', question: entry.message, result });
    return { status: 'applied', questionId, result };
  }

  /** Appends the question's one `question-end`; a closed writer leaves it open for a restart. */
  private record(entry: PendingQuestion, result: AskResult, via: QuestionOutcome['via']): void {
    try {
      entry.end({
        questionId: entry.message.questionId,
        status: result.status,
        ...(result.status === 'answered' ? { answers: { ...result.answers } } : {}),
        ...(via !== undefined ? { via } : {}),
      });
    } catch (error) {
      // The writer is closed: the stream keeps the question open, and a restart takes it up again.
      this.logger.debug('question end not appended', {
        questionId: entry.message.questionId,
        error: String(error),
      });
    }
  }

  private open(message: QuestionMessage, end: EndQuestion, recovered: boolean): PendingQuestion {
    const entry = pendingQuestion(message, end, recovered);
    this.questions.ask(message.questionId, entry);
    void this.mirror?.asked(message, entry.createdAt);
    this.pushes?.schedule(message.questionId, {
      kind: 'question',
      title: 'Clarification needed',
      body: this.options.sessionTitle ?? 'Session',
      data: { questionId: message.questionId, type: 'question' },
    });
    this.subject.next({ kind: 'asked', question: message, recovered });
    return entry;
  }

  private remoteAllowed(): boolean {
    try {
      return this.options.acceptRemoteAnswers?.() ?? true;
    } catch {
      return false;
    }
  }

  /**
   * Applies to each question a dead process left waiting the people's answers stored after that
   * process's last record, in order: the first valid one ends it (docs/recovery.md).
   */
  private takeUpAnswers(history: readonly SessionMessage[], ledger: QuestionLedger): void {
    const lastAgentRecord = history.findLastIndex((m) => m.role === 'agent');
    const position = new Map(history.map((m, i) => [m.id, i]));
    if (!this.remoteAllowed()) return;
    for (const entry of this.questions.pending()) {
      const questionId = entry.message.questionId;
      for (const answer of ledger.answersTo(questionId)) {
        if ((position.get(answer.id) ?? -1) <= lastAgentRecord) continue;
        const got = this.decide(questionId, {
          by: 'person',
          status: answer.status,
          answers: answer.answers,
          via: 'stream',
        });
        if (got.status !== 'applied') continue;
        this.answeredMeanwhile.push({ question: entry.message, result: got.result });
        break;
      }
    }
  }

  private start(): void {
    const history = this.options.history ?? [];
    if (history.length > 0) {
      const ledger = questionLedgerOf(history);
      // Ended questions are remembered as the stream ended them: a late answer is refused.
      for (const [id, ending] of ledger.ended) {
        const asked = ledger.question(id);
        if (!asked) continue;
        this.questions.ask(
          id,
          pendingQuestion(asked, (content) => this.options.writer.append(endDraft(asked, content)), true),
        );
        this.questions.decide(id, { by: 'desk', result: resultOf(ending) });
      }
      const recovered = ledger.pending.map((message) =>
        this.open(message, (content) => this.options.writer.append(endDraft(message, content)), true),
      );
      void this.mirror?.reset(recovered.map((e) => ({ message: e.message, createdAt: e.createdAt })));
      this.takeUpAnswers(history, ledger);
    }
    if (this.options.incoming) {
      const s = this.options.incoming.subscribe((input) => {
        this.handleStreamInput(input).catch((error: unknown) =>
          this.logger.error('a stream answer could not be read', { error: String(error) }),
        );
      });
      this.teardown.push(() => s.unsubscribe());
    }
    if (this.options.rpc)
      this.teardown.push(this.options.rpc.register('communication', (body) => this.handleRpc(body)));
    this.teardown.push(
      this.options.writer.install({ questions: this, onLifecycle: (event) => this.onLifecycle(event) }),
    );
  }

  private onLifecycle(event: StreamLifecycleEvent): void {
    if (event.kind === 'writer-closing') {
      // Taken over (docs/writer-lease.md): each waiter rejects with why, and nothing is recorded.
      const failure = event.revokedBy;
      if (failure)
        for (const { message } of this.questions.pending())
          this.decide(message.questionId, {
            by: 'desk',
            result: { status: 'stopped', questionId: message.questionId },
            unstored: failure,
          });
      return this.dispose();
    }
    for (const entry of this.questions.pending()) {
      const m = entry.message;
      const closes = event.kind === 'turn-closing' ? m.turn === event.turn : m.parentId === event.callId;
      if (closes)
        this.decide(m.questionId, { by: 'desk', result: { status: 'stopped', questionId: m.questionId } });
    }
  }
}

/**
 * Whether a reply ends a question, and how (docs/questions.md, "Answers"): the desk's own endings
 * always do; a person's reply dismisses it, or answers it with answers that fit the questions
 * asked; anything else is refused and the question still waits.
 */
function judgeReply(entry: PendingQuestion, given: QuestionReply): Ruling<QuestionOutcome, QuestionRefusal> {
  if (given.by === 'desk') return { decision: { result: given.result } };
  const questionId = entry.message.questionId;
  if (given.status === 'cancelled')
    return { decision: { result: { status: 'cancelled', questionId }, via: given.via } };
  if (given.status !== 'answered')
    return {
      refusal: refusal('questions.invalid_answer', 'status must be answered or cancelled.', questionId),
    };
  const answers = checkAnswers(questionId, entry.message.questions, given.answers);
  if (isRefusal(answers)) return { refusal: answers };
  return {
    decision: { result: { status: 'answered', questionId, answers, via: given.via }, via: given.via },
  };
}

/** The result a recorded `question-end` stands for. */
function resultOf(ending: QuestionEndMessage): AskResult {
  if (ending.status === 'answered')
    return {
      status: 'answered',
      questionId: ending.questionId,
      answers: ending.answers ?? {},
      via: ending.via ?? 'rpc',
    };
  return { status: ending.status, questionId: ending.questionId };
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
