import type { SessionMessage } from '../protocol/sessionMessage.js';
import { ledgerOf } from '../stream/permissionLedger.js';
import type { LedgerMessage, LedgerOptions } from '../stream/permissionLedger.js';
import type { SessionRule } from '../policy/sessionRules.js';
import { SessionRuleStore } from '../policy/sessionRules.js';
import { isPermissionOptionKind } from '../policy/options.js';

/**
 * Text of the `service` message that records a revoked session rule, followed by the rule id
 * (`allow:Bash(npm test)`). v2 has no rule event, so the revocation is written as a service message
 * and read back by {@link rebuildRules}; a forged one can only take a rule away, never grant one.
 */
export const REVOKE_PREFIX = 'Permission rule revoked: ';

/** Error of the `tool-call-end` that closes a request a dead process left pending. */
export const ORPHAN_ERROR = 'cancelled';

/**
 * The rules granted in `messages`, read in order by the one arbitration the live gate follows
 * (`PermissionLedger`): a request's decision is the agent's own record of the answer it applied (a
 * user `permission-response` with `via`), the first one after the request and before it closed;
 * answers without `via` are inputs and grant nothing. Revocations are not in the v2 message set:
 * {@link rebuildRules} applies them.
 */
export function grantedRules(
  messages: Iterable<LedgerMessage>,
  options: LedgerOptions = {},
): readonly SessionRule[] {
  const store = new SessionRuleStore();
  grantFrom(messages, store, options);
  return store.listRules();
}

function grantFrom(messages: Iterable<LedgerMessage>, store: SessionRuleStore, options: LedgerOptions): void {
  // In the order the answers were recorded, as the live gate granted them.
  const answered = ledgerOf(messages, options).entries.filter((e) => e.answer !== undefined);
  answered.sort((a, b) => a.answerIndex! - b.answerIndex!);
  for (const { request, answer } of answered) {
    if (!answer || typeof request.toolName !== 'string') continue;
    const option = request.options?.find((o) => o.id === answer.optionId);
    if (!option || !isPermissionOptionKind(option.kind)) continue;
    store.addFromAnswer({
      toolName: request.toolName,
      args: request.args,
      kind: option.kind,
      ...(answer.updatedInput !== undefined ? { updatedInput: answer.updatedInput } : {}),
      ...(answer.id !== undefined ? { grantedBy: answer.id } : {}),
      ...(answer.time !== undefined ? { at: answer.time } : {}),
    });
  }
}

/**
 * The session rules as the stream leaves them: grants from authoritative `allow-always` /
 * `reject-always` answers, minus rules revoked after they were granted (docs/permissions-requirements.md R6, R13).
 */
export function rebuildRules(
  history: readonly SessionMessage[],
  options: LedgerOptions = {},
): readonly SessionRule[] {
  const store = new SessionRuleStore();
  grantFrom(history, store, options);
  const position = new Map(history.map((m, i) => [m.id, i]));
  history.forEach((m, i) => {
    if (m.type !== 'service' || m.role !== 'agent' || !m.text.startsWith(REVOKE_PREFIX)) return;
    const id = m.text.slice(REVOKE_PREFIX.length).trim();
    const rule = store.listRules().find((r) => r.id === id);
    const grantedAt = rule?.grantedBy !== undefined ? (position.get(rule.grantedBy) ?? -1) : -1;
    if (rule && grantedAt < i) store.revokeRule(id);
  });
  return store.listRules();
}
