import type { RpcContext } from '../ports/rpc.js';
import type { Answering, GateSettlement } from './answering.js';
import { runNow } from './answering.js';
import { answerFromRpcBody } from './answers.js';
import type { RespondResult } from './respondResult.js';
import { refuse } from './respondResult.js';

/**
 * The `permission` RPC handler (docs/permissions.md, "How the gate is built"): the v2 body
 * `{ callId, optionId, updatedInput? }` or today's legacy body. It returns once the decision is
 * taken, recorded and its waiter released. With `context` (what the registry hands a handler),
 * the adapters (agentState mirror, push, rule grants) hear of it once the answer is sent
 * (`afterAnswer`); without it, before this returns (docs/permissions.md, "What follows an answer").
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

/**
 * What the `permission` handler hands its registry: a result that released a waiter (`applied`)
 * comes a microtask later, so the waiter's continuation, queued when it was released (the tool's
 * start), runs before the registry seals and sends the answer; other results at once
 * (docs/permissions.md, "What follows an answer").
 */
export function answerAfterWaiter(result: RespondResult): RespondResult | Promise<RespondResult> {
  return result.status === 'applied' ? Promise.resolve(result) : result;
}
