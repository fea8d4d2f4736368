import type { PermissionOption } from '../policy/options.js';
import { isAllowKind } from '../policy/options.js';
import { describePolicyResult, type PolicyResult } from '../policy/policy.js';
import type { Decision, DecisionOutcome, DecisionSource, DecisionVia } from '../stream/decision.js';

export type { Decision, DecisionOutcome, DecisionSource, DecisionVia };

/**
 * The decision a policy result stands for, or `undefined` when the policy says to ask.
 * A `dontAsk` refusal and every mode decision have `source: 'mode'`; a denial's message names the
 * rule or mode (`Denied by the deny rule Bash(rm:*).`).
 */
export function decisionFromPolicy(result: PolicyResult): Decision | undefined {
  if (result.verdict === 'ask') return undefined;
  const reason = result.reason;
  const outcome = result.verdict;
  const message = describePolicyResult(result);
  if (reason.kind === 'rule') return { outcome, source: 'rule', rule: reason.rule, message };
  if (reason.kind === 'sandbox') return { outcome, source: 'sandbox', message };
  return { outcome, source: 'mode', message };
}

/** The decision for a user's choice of `option`, received by `via`. */
export function decisionFromOption(option: PermissionOption, via: DecisionVia, message?: string): Decision {
  return {
    outcome: isAllowKind(option.kind) ? 'allow' : 'deny',
    optionId: option.id,
    kind: option.kind,
    source: 'user',
    via,
    ...(message !== undefined ? { message } : {}),
  };
}

/** A request closed by the runtime without a user answer: aborted (`cancel`) or the process ended (`shutdown`). */
export function cancelledDecision(source: 'cancel' | 'shutdown', message: string): Decision {
  return { outcome: 'cancelled', source, message };
}
