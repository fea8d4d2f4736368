import { OnceClaim } from '../ports/onceClaim.js';
import type { QuestionMessage } from '../protocol/sessionMessage.js';
import type { AskResult, AskTarget } from '../stream/questionPorts.js';
import type { Delivery } from '../stream/types.js';

/** How a pending question appends its `question-end`. */
export type EndQuestion = (content: Parameters<AskTarget['end']>[0]) => Delivery;

/**
 * One question waiting for its first valid answer, claimed once ({@link OnceClaim}, as a
 * permission request is): the first valid answer, the turn's stop, its signal or its timeout.
 */
export class PendingQuestion {
  readonly promise: Promise<AskResult>;
  private resolvePromise!: (result: AskResult) => void;
  private rejectPromise!: (error: unknown) => void;
  private readonly once = new OnceClaim();

  constructor(
    /** The `question` record, as stored. */
    readonly message: QuestionMessage,
    readonly end: EndQuestion,
    readonly createdAt: number,
    /** True for a question a previous process asked, recovered from the stream (no waiter of ours). */
    readonly recovered: boolean,
  ) {
    this.promise = new Promise((resolve, reject) => {
      this.resolvePromise = resolve;
      this.rejectPromise = reject;
    });
    // A recovered question has no waiter until someone asks for its result.
    if (recovered) this.promise.catch(() => undefined);
  }

  get id(): string {
    return this.message.questionId;
  }

  /** Calls `onTimeout` after `ms`, unless claimed first. */
  startTimer(ms: number, onTimeout: () => void): void {
    this.once.startTimer(ms, onTimeout);
  }

  /** Calls `onAbort` when `signal` aborts, unless claimed first. */
  watch(signal: AbortSignal, onAbort: () => void): void {
    this.once.watch(signal, onAbort);
  }

  /** Takes the question for one outcome if nothing took it before (false otherwise). */
  claim(): boolean {
    return this.once.claim();
  }

  /** Releases the waiter, after a {@link PendingQuestion.claim} that returned true. */
  resolve(result: AskResult): void {
    this.resolvePromise(result);
  }

  /** Rejects the waiter (the question could not be stored), after a claim that returned true. */
  reject(error: unknown): void {
    this.rejectPromise(error);
  }
}
