import type { AnswerErrorCode, AnswerResult } from '../stream/answerResult.js';

/** A typed refusal. */
export function refuse(
  code: AnswerErrorCode,
  message: string,
  issues?: readonly string[],
): AnswerResult<'gate'> {
  return { status: 'error', code, message, ...(issues ? { issues } : {}) };
}
