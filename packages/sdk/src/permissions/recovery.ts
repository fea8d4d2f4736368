import type { SessionMessage } from '../protocol/sessionMessage.js';
import type { PermissionDecision } from '../stream/plugins.js';
import type { SessionWriter } from '../stream/sessionWriter.js';
import { foldPermissions } from '../stream/fold.js';
import { cancelledDecision } from './decision.js';
import type { SessionRule } from './sessionRules.js';
import { SessionRuleStore } from './sessionRules.js';

/**
 * Text of the `service` message that records a revoked session rule, followed by the rule id
 * (`allow:Bash(npm test)`). v2 has no rule event, so the revocation is written as a service message
 * and read back by {@link rebuildRules}; a forged one can only take a rule away, never grant one.
 */
export const REVOKE_PREFIX = 'Permission rule revoked: ';

/** Error of the `tool-call-end` that closes a request a dead process left pending. */
export const ORPHAN_ERROR = 'cancelled';

/**
 * The session rules as the stream leaves them: grants from authoritative `allow-always` /
 * `reject-always` answers, minus rules revoked after they were granted (docs/permissions-requirements.md R6, R13).
 */
export function rebuildRules(history: readonly SessionMessage[]): readonly SessionRule[] {
  const store = new SessionRuleStore();
  store.rebuildFromMessages(history);
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

/**
 * Closes every request left pending in `history` by a process that died: appends its call's
 * `tool-call-end` with an error, so that the fold shows nothing pending (docs/permissions-requirements.md R13.1).
 */
export function closeOrphans(
  history: readonly SessionMessage[],
  writer: SessionWriter,
): Array<{ callId: string; decision: PermissionDecision }> {
  const lastTime = history.reduce((t, m) => Math.max(t, m.time), 0);
  const closed: Array<{ callId: string; decision: PermissionDecision }> = [];
  for (const request of foldPermissions(history)) {
    writer.append({
      role: 'agent',
      type: 'tool-call-end',
      turn: request.turn,
      callId: request.callId,
      ...(request.parentId !== undefined ? { parentId: request.parentId } : {}),
      ...(request.agentId !== undefined ? { agentId: request.agentId } : {}),
      error: ORPHAN_ERROR,
      time: Math.max(Date.now(), lastTime + 1),
    });
    closed.push({
      callId: request.callId,
      decision: cancelledDecision('shutdown', 'The agent restarted before the request was answered.'),
    });
  }
  return closed;
}
