import * as z from '../zod.js';
import { agentBaseShape } from './base.js';

/** Where a plan entry stands (docs/protocol.md, "plan"); the words of ACP's plan and of `TodoWrite`. */
export const PlanEntryStatusSchema = z.enum(['pending', 'in_progress', 'completed']);

/** How much a plan entry matters, as ACP and `TodoWrite` say it. */
export const PlanEntryPrioritySchema = z.enum(['high', 'medium', 'low']);

/** One step of the agent's plan. */
export const PlanEntrySchema = z.object({
  /** What the step is, in a line of inline markdown. */
  content: z.string().check(z.minLength(1)),
  status: PlanEntryStatusSchema,
  priority: z.optional(PlanEntryPrioritySchema),
});

/**
 * `plan` (an extension of this SDK, docs/protocol.md, "plan"): the agent's whole plan as it stands
 * now. Each `plan` replaces the one before it from the same agent; the latest is the plan.
 */
export const PlanSchema = z.object({
  ...agentBaseShape,
  type: z.literal('plan'),
  entries: z.array(PlanEntrySchema),
});
