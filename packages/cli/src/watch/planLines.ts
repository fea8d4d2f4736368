import type { PlanEntry, PlanMessage } from 'happy-session';
import { oneLine } from '../transcript.js';

const MARK: Readonly<Record<PlanEntry['status'], string>> = {
  completed: '[x]',
  in_progress: '[>]',
  pending: '[ ]',
};

/** How far a plan is: `Plan · 2 of 5 done`. */
export function planHeadline(plan: PlanMessage): string {
  const done = plan.entries.filter((e) => e.status === 'completed').length;
  return `Plan · ${done} of ${plan.entries.length} done`;
}

/**
 * The agent's current plan as a checklist, for the top of the watch screen: one line per entry,
 * `[x]` done, `[>]` in progress, `[ ]` pending, its priority after it when it has one. No lines
 * without a plan.
 */
export function planLines(plan: PlanMessage | undefined): string[] {
  if (!plan) return [];
  return [
    planHeadline(plan),
    ...plan.entries.map(
      (e) => `  ${MARK[e.status]} ${oneLine(e.content)}${e.priority !== undefined ? ` (${e.priority})` : ''}`,
    ),
  ];
}
