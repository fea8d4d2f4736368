import type { Observable, Subscription } from 'rxjs';
import type { RequestEvent, SettledRequest } from './gateEvents.js';
import type { SessionRuleStore } from '../policy/sessionRules.js';

/**
 * Grants the session rule of every `allow-always` / `reject-always` answer as the gate settles
 * requests (docs/permissions-requirements.md R6), with the id and time of the agent's record of the
 * answer, the same values a rebuild from the stream reads. An answer that edited the arguments
 * grants nothing: the rule offered was for the arguments shown. Calls `onGranted` after a grant.
 */
export function grantRules(
  events$: Observable<RequestEvent>,
  store: SessionRuleStore,
  onGranted: (settled: SettledRequest) => void,
): Subscription {
  return events$.subscribe((event) => {
    if (event.kind !== 'settled' || !event.answer) return;
    const call = event.request.call;
    const record = event.answer.record;
    const grant = store.addFromAnswer({
      toolName: call.toolName,
      args: call.args,
      ...(call.kind !== undefined ? { toolKind: call.kind } : {}),
      kind: event.answer.option.kind,
      ...(event.answer.updatedInput !== undefined ? { updatedInput: event.answer.updatedInput } : {}),
      ...(record ? { grantedBy: record.id, at: record.time } : {}),
    });
    if (grant) onGranted(event.settled);
  });
}
