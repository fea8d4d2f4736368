// An ACP `plan` session update as the v2 plan it stands for (docs/protocol.md, "plan").
import type * as acp from '@agentclientprotocol/sdk';
import type { PlanEntry } from 'happy-session';

/**
 * The entries of an ACP plan as v2 plan entries: content, status and priority carry over as they
 * are (ACP and v2 use the same words); an entry without content gets a stand-in, so that the plan
 * keeps its length. The v2 writer refuses a status or priority outside the three of each.
 */
export function planEntriesOf(plan: acp.Plan): PlanEntry[] {
  return plan.entries.map((entry) => ({
    content: entry.content.trim() === '' ? '(no description)' : entry.content,
    status: entry.status,
    priority: entry.priority,
  }));
}
