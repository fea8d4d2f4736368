import type { QuestionEndMessage } from '../protocol/sessionMessage.js';
import type { QuestionRefusal, QuestionRefusalCode } from '../stream/answerResult.js';

/** Returned, never thrown: a bad answer leaves the question waiting (docs/questions.md). */
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
