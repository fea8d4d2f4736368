import { z } from 'zod';

/**
 * The fields every v2 message carries (docs/protocol.md, "Message format").
 * `turn`, `parentId` and `agentId` are optional here; the agent message schemas make `turn` required.
 */
export const messageBaseShape = {
  /** Unique message id; writers use cuid2-shaped ids, readers accept any non-empty string. */
  id: z.string().min(1),
  /** Unix time in milliseconds; the app orders rows by it. */
  time: z.number().int().nonnegative(),
  /** Turn id (required on agent messages, see the agent schemas). */
  turn: z.string().min(1).optional(),
  /** The `callId` of the tool call this message is nested under. */
  parentId: z.string().min(1).optional(),
  /** Stable identity of the subagent that produced this message. */
  agentId: z.string().min(1).optional(),
};

/** Base shape of an agent message: `role: "agent"` with a required `turn`. */
export const agentBaseShape = {
  ...messageBaseShape,
  role: z.literal('agent'),
  turn: z.string().min(1),
};

/** Base shape of a user message: `role: "user"`. */
export const userBaseShape = {
  ...messageBaseShape,
  role: z.literal('user'),
};
