import type { QuestionRefusal } from '../stream/answerResult.js';
import { refusal } from './answerResult.js';

/** An answer as the `communication` RPC carries it: today's app's body (docs/questions.md, "Answering"). */
export interface CommunicationReply {
  readonly id: string;
  readonly status: 'answered' | 'cancelled';
  readonly answers?: unknown;
}

/**
 * Reads the body of the `communication` RPC, `{id, kind, status, answers?}` as today's app sends
 * it (`kind` is `form`, or left out). Anything else is refused with a typed result.
 */
export function replyFromRpcBody(body: unknown): CommunicationReply | QuestionRefusal {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return refusal('questions.invalid_answer', 'The communication answer must be an object.');
  const { id, kind, status, answers } = body as Record<string, unknown>;
  if (typeof id !== 'string' || id === '')
    return refusal('questions.invalid_answer', 'The communication answer has no id.');
  if (kind !== undefined && kind !== 'form')
    return refusal(
      'questions.invalid_answer',
      `This agent answers only form communications, not ${String(kind).slice(0, 40)}.`,
      id,
    );
  if (status !== 'answered' && status !== 'cancelled')
    return refusal('questions.invalid_answer', 'status must be answered or cancelled.', id);
  return { id, status, ...(answers !== undefined ? { answers } : {}) };
}
