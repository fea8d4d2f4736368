import type { SessionRpcCaller } from '../ports/rpc.js';
import type { QuestionAnswer, QuestionAnswerMessage } from '../protocol/sessionMessage.js';
import type { AnswerResult } from '../stream/answerResult.js';
import type { Delivered, Delivery } from '../stream/types.js';

/** What a person answers to a question: the answers by question id, or `cancelled` to dismiss it. */
export type QuestionReply = Readonly<Record<string, Partial<QuestionAnswer>>> | 'cancelled';

/** The fields of a `question-answer` record, before the writer stamps it. */
export type QuestionAnswerDraft = Pick<QuestionAnswerMessage, 'type' | 'questionId' | 'status' | 'answers'>;

/**
 * What became of an answer sent to the agent: its typed result; or, when no agent answered, the
 * record that holds it for the next agent process; or why it reached nobody.
 */
export type SentQuestionReply =
  | AnswerResult<'desk'>
  | {
      /** No agent answered the RPC; the answer is stored in the stream for the next one (docs/recovery.md). */
      readonly status: 'recorded';
      readonly questionId: string;
      readonly delivered: Delivered;
      /** Why the RPC reached no agent. */
      readonly error: string;
    }
  | { readonly status: 'unreachable'; readonly questionId: string; readonly error: string };

/**
 * Sends a reply by the `communication` RPC in today's app's exact shape, `{id, kind: 'form',
 * status, answers?}` (docs/questions.md, "Answering"), and reads the agent's typed result. When
 * the RPC reaches no agent and `record` is given, the reply is appended as the user's
 * `question-answer` record instead, which the next agent process applies: the RPC goes first, so
 * a live agent never sees the same answer twice.
 */
export async function sendQuestionReply(
  rpc: SessionRpcCaller,
  questionId: string,
  reply: QuestionReply,
  record?: (draft: QuestionAnswerDraft) => Delivery,
): Promise<SentQuestionReply> {
  const body =
    reply === 'cancelled'
      ? { id: questionId, kind: 'form', status: 'cancelled' }
      : { id: questionId, kind: 'form', status: 'answered', answers: reply };
  const outcome = await rpc('communication', body);
  if (outcome.ok) {
    const result = outcome.result as AnswerResult<'desk'> | null;
    if (result && (result.status === 'applied' || result.status === 'refused')) return result;
  }
  const error = outcome.ok ? 'The agent gave no answer to the communication RPC.' : outcome.error;
  if (!record) return { status: 'unreachable', questionId, error };
  const draft: QuestionAnswerDraft =
    reply === 'cancelled'
      ? { type: 'question-answer', questionId, status: 'cancelled' }
      : { type: 'question-answer', questionId, status: 'answered', answers: completeAnswers(reply) };
  return { status: 'recorded', questionId, delivered: await record(draft), error };
}

/** The answers as the record holds them: every question's `options` list present. */
function completeAnswers(
  reply: Readonly<Record<string, Partial<QuestionAnswer>>>,
): Record<string, QuestionAnswer> {
  const out: Record<string, QuestionAnswer> = {};
  for (const [id, answer] of Object.entries(reply))
    out[id] = {
      options: [...(answer.options ?? [])],
      ...(answer.custom !== undefined ? { custom: answer.custom } : {}),
    };
  return out;
}
