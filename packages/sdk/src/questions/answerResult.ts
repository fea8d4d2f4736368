import type { QuestionsErrorCode } from '../errorCodes.js';
import type { QuestionEndMessage } from '../protocol/sessionMessage.js';
import type { AskResult } from '../stream/questionPorts.js';

/** Why an answer to a question was refused: a code of the `questions.*` family (docs/errors.md). */
export type QuestionRefusalCode = Exclude<
  QuestionsErrorCode,
  'questions.not_configured' | 'questions.invalid' | 'questions.invalid_timeout'
>;

/** A refused answer: nothing changed, and the question (if pending) still waits. */
export interface QuestionRefusal {
  readonly status: 'refused';
  /** Why, as a `questions.*` code (docs/errors.md, "Questions"). */
  readonly code: QuestionRefusalCode;
  /** The reason in words, for the person. */
  readonly message: string;
  /** The question the answer was for, when it named one. */
  readonly questionId?: string;
  /** For `questions.settled`: how the question ended. */
  readonly ended?: QuestionEndMessage['status'];
}

/**
 * What an answer to a question got, by any channel (the `communication` RPC's result, the local
 * program's): applied (it ended the question) or refused with a code. Never thrown.
 */
export type QuestionAnswerResult =
  { readonly status: 'applied'; readonly questionId: string; readonly result: AskResult } | QuestionRefusal;

/** A typed refusal. */
export function refusal(
  code: QuestionRefusalCode,
  message: string,
  questionId?: string,
  ended?: QuestionEndMessage['status'],
): QuestionRefusal {
  return {
    status: 'refused',
    code,
    message,
    ...(questionId !== undefined ? { questionId } : {}),
    ...(ended !== undefined ? { ended } : {}),
  };
}
