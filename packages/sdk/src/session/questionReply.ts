import type { SessionRpcCaller } from '../ports/rpc.js';
import type { QuestionAnswer } from '../protocol/sessionMessage.js';
import type { QuestionAnswerResult } from '../questions/answerResult.js';

/** What a person answers to a question: the answers by question id, or `cancelled` to dismiss it. */
export type QuestionReply = Readonly<Record<string, Partial<QuestionAnswer>>> | 'cancelled';

/** What became of an answer sent to the agent: its typed result, or why it did not reach the agent. */
export type SentQuestionReply =
  | QuestionAnswerResult
  | { readonly status: 'unreachable'; readonly questionId: string; readonly error: string };

/**
 * Sends a reply by the `communication` RPC in today's app's exact shape, `{id, kind: 'form',
 * status, answers?}` (docs/questions.md, "Answering"), and reads the agent's typed result.
 */
export async function sendQuestionReply(
  rpc: SessionRpcCaller,
  questionId: string,
  reply: QuestionReply,
): Promise<SentQuestionReply> {
  const body =
    reply === 'cancelled'
      ? { id: questionId, kind: 'form', status: 'cancelled' }
      : { id: questionId, kind: 'form', status: 'answered', answers: reply };
  const outcome = await rpc('communication', body);
  if (!outcome.ok) return { status: 'unreachable', questionId, error: outcome.error };
  const result = outcome.result as QuestionAnswerResult | null;
  if (result && (result.status === 'applied' || result.status === 'refused')) return result;
  return { status: 'unreachable', questionId, error: 'The agent gave no answer to the communication RPC.' };
}
