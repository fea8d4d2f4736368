import * as z from '../zod.js';

/**
 * The fields every v2 message carries (docs/protocol.md, "Message format").
 * `turn`, `parentId` and `agentId` are optional here; the agent message schemas make `turn` required.
 */
export const messageBaseShape = {
  /** Unique message id; writers use cuid2-shaped ids, readers accept any non-empty string. */
  id: z.string().check(z.minLength(1)),
  /** Unix time in milliseconds; the app orders rows by it. */
  time: z.int().check(z.nonnegative()),
  /** Turn id (required on agent messages, see the agent schemas). */
  turn: z.optional(z.string().check(z.minLength(1))),
  /** The `callId` of the tool call this message is nested under. */
  parentId: z.optional(z.string().check(z.minLength(1))),
  /** Stable identity of the subagent that produced this message. */
  agentId: z.optional(z.string().check(z.minLength(1))),
};

/** Base shape of an agent message: `role: "agent"` with a required `turn`. */
export const agentBaseShape = {
  ...messageBaseShape,
  role: z.literal('agent'),
  turn: z.string().check(z.minLength(1)),
};

/** Base shape of a user message: `role: "user"`. */
export const userBaseShape = {
  ...messageBaseShape,
  role: z.literal('user'),
};
