import type { AnswerErrorCode, AnswerResult } from '../stream/answerResult.js';

/**
 * A refusal is returned, never thrown: a bad answer from any channel reaches its caller as a
 * result with a code, and allows nothing.
 */
export function refuse(
  code: AnswerErrorCode,
  message: string,
  issues?: readonly string[],
): AnswerResult<'gate'> {
  return { status: 'error', code, message, ...(issues ? { issues } : {}) };
}
