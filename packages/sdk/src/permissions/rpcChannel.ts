import type { RpcContext } from '../ports/rpc.js';
import type { Answering, GateSettlement } from './answering.js';
import { runNow } from './answering.js';
import { answerFromRpcBody } from './answers.js';
import type { RespondResult } from './respondResult.js';
import { refuse } from './respondResult.js';

/**
 * The `permission` RPC handler (docs/permissions.md, "How the gate is built"): the v2 body
 * `{ callId, optionId, updatedInput? }` or today's legacy body. It returns as soon as the decision
 * is taken. With `context` (what the registry hands a handler), the decision is recorded and
 * carried out once the answer is sent (`afterAnswer`); without it, before this returns. Either
 * way the tool starts only after its record is appended (docs/permissions.md, "What follows an
 * answer").
 */
export function answerRpc(
  deps: {
    readonly answering: Answering;
    readonly gate: GateSettlement;
    readonly remoteAllowed: () => boolean;
  },
  body: unknown,
  context?: Pick<RpcContext, 'afterAnswer'>,
): RespondResult {
  if (!deps.remoteAllowed())
    return refuse('permissions.not_allowed', 'Remote answers are not accepted right now.');
  const answer = answerFromRpcBody(body, (id) => deps.gate.lookupRecord(id) ?? deps.gate.lookup(id));
  if ('status' in answer) return answer;
  return deps.answering.apply(answer, context ? (task) => context.afterAnswer(task) : runNow);
}
