import { Wait } from '../ports/wait.js';
import type { QuestionMessage } from '../protocol/sessionMessage.js';
import type { AskResult, AskTarget } from '../stream/questionPorts.js';
import type { Delivery } from '../stream/types.js';

/** How a pending question appends its `question-end`. */
export type EndQuestion = (content: Parameters<AskTarget['end']>[0]) => Delivery;

/**
 * One question waiting for its first valid answer, as the desk's arbiter holds it: the `question`
 * record, how to end it, and its waiter (with the turn's stop, its signal and its timeout).
 */
export interface PendingQuestion {
  /** The `question` record, as stored. */
  readonly message: QuestionMessage;
  readonly end: EndQuestion;
  readonly createdAt: number;
  /** True for a question a previous process asked, recovered from the stream (no waiter of ours). */
  readonly recovered: boolean;
  readonly wait: Wait<AskResult>;
}

/** A question waiting from now on. */
export function pendingQuestion(
  message: QuestionMessage,
  end: EndQuestion,
  recovered: boolean,
): PendingQuestion {
  const wait = new Wait<AskResult>();
  // A recovered question has no waiter until someone asks for its result.
  if (recovered) wait.promise.catch(() => undefined);
  return { message, end, createdAt: Date.now(), recovered, wait };
}

/** What the desk's arbiter is handed: a person's reply (judged), or the desk's own ending (always counts). */
export type QuestionReply =
  | {
      readonly by: 'person';
      readonly status: 'answered' | 'cancelled' | string;
      readonly answers: unknown;
      readonly via: 'rpc' | 'local' | 'stream';
    }
  | {
      readonly by: 'desk';
      readonly result: AskResult;
      /** Set when the question was never stored: its waiter fails with this, and nothing is recorded. */
      readonly unstored?: unknown;
    };

/** How a question ended, and by which channel when a person ended it. */
export interface QuestionOutcome {
  readonly result: AskResult;
  readonly via?: 'rpc' | 'local' | 'stream';
}
