import type { RpcOutcome } from 'happy-session/ports';

/**
 * The RPC outcome in words. A permission gate answers with its `AnswerResult<'gate'>`: `applied`,
 * `already_resolved` (it had the stream answer first, the usual case), or a typed refusal.
 */
export function describeRpc(outcome: RpcOutcome): string {
  if (!outcome.ok) return `failed: ${outcome.error}`;
  const result = (outcome.result ?? {}) as { status?: unknown; code?: unknown; error?: unknown };
  if (result.status === 'applied') return 'applied';
  if (result.status === 'already_resolved') return 'already resolved';
  if (result.status === 'error') return `refused (${String(result.code)})`;
  return typeof result.error === 'string' ? `answered with error: ${result.error}` : 'delivered';
}
