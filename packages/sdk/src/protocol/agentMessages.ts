import * as z from '../zod.js';
import { agentBaseShape, messageBaseShape } from './base.js';
import { fileShape, photoShape, videoShape } from './media.js';

/** How a turn ended (docs/protocol.md, "turn-end"). */
export const TurnEndStatusSchema = z.enum(['completed', 'failed', 'cancelled']);

/** The four permission option kinds, spelled as in ACP (docs/protocol.md, "permission-request"). */
export const PermissionOptionKindSchema = z.enum([
  'allow-once',
  'allow-always',
  'reject-once',
  'reject-always',
]);

/** One choice offered to the user in a `permission-request`. */
export const PermissionOptionSchema = z.object({
  id: z.string().check(z.minLength(1)),
  label: z.string().check(z.minLength(1)),
  kind: PermissionOptionKindSchema,
});

/** Tool input arguments: a JSON object. */
const ArgsSchema = z.record(z.string(), z.unknown());

/** `turn-start`: the agent begins processing a prompt. */
export const TurnStartSchema = z.object({ ...agentBaseShape, type: z.literal('turn-start') });

/** `turn-end`: the agent finished the turn with a status. */
export const TurnEndSchema = z.object({
  ...agentBaseShape,
  type: z.literal('turn-end'),
  status: TurnEndStatusSchema,
  /**
   * Extension: why the turn ended, in words the person reads, when the writer knows more than the
   * status says (a successor ends a dead process's turn with "The agent restarted.", docs/recovery.md).
   */
  reason: z.optional(z.string()),
});

/** `text` from the agent: markdown output, or reasoning when `thinking` is true. */
export const AgentTextSchema = z.object({
  ...agentBaseShape,
  type: z.literal('text'),
  text: z.string(),
  thinking: z.optional(z.boolean()),
});

/** `tool-call-start`: the model decided to call a tool; it runs only after any permission. */
export const ToolCallStartSchema = z.object({
  ...agentBaseShape,
  type: z.literal('tool-call-start'),
  callId: z.string().check(z.minLength(1)),
  toolName: z.string().check(z.minLength(1)),
  title: z.string(),
  description: z.string(),
  args: ArgsSchema,
  /** Human-readable label when this call spawns a subagent. */
  agentTitle: z.optional(z.string()),
  /**
   * Extension: the `callId` of the call a dead process left, which this one takes up again
   * (docs/recovery.md, "Interrupted calls").
   */
  resumes: z.optional(z.string().check(z.minLength(1))),
});

/** `tool-call-end`: the call is over; `error` says why when it failed. */
export const ToolCallEndSchema = z.object({
  ...agentBaseShape,
  type: z.literal('tool-call-end'),
  callId: z.string().check(z.minLength(1)),
  error: z.optional(z.string()),
});

/** One file a previewed command would create, change or delete (docs/sandbox.md, "Preview before approval"). */
export const PreviewFileSchema = z.object({
  /** Workspace-relative, `/`-separated. */
  path: z.string().check(z.minLength(1)),
  change: z.enum(['created', 'changed', 'deleted']),
  /** Bytes after the change (before it, for a deleted file). */
  size: z.number().check(z.int(), z.nonnegative()),
  /** A short line diff, for text files only; bounded. */
  diff: z.optional(z.string()),
});

/**
 * Extension: what a command did when it ran first in the sandbox on a copy of the workspace with
 * no network (docs/sandbox.md, "Preview before approval").
 */
export const PermissionPreviewSchema = z.object({
  /** The files it would create, change or delete (at most 100; `filesOmitted` counts the rest). */
  files: z.array(PreviewFileSchema),
  filesOmitted: z.optional(z.number().check(z.int(), z.nonnegative())),
  /** Connections it tried (`host:port`), all refused. */
  network: z.array(z.string()),
  /** Processes it left running when it exited (they were ended). */
  processesLeft: z.number().check(z.int(), z.nonnegative()),
  /** Its exit status; `null` when a signal ended it. */
  exitCode: z.nullable(z.number().check(z.int())),
  /** The end of its output, bounded. */
  outputTail: z.string(),
  /**
   * `true`: on allow, exactly these file changes land. `false`: its effect reaches outside the
   * workspace (`reason` says how), and on allow the command runs again, for real.
   */
  applicable: z.boolean(),
  reason: z.optional(z.string()),
});

/** `permission-request`: the agent asks the user before a tool call runs. */
export const PermissionRequestSchema = z.object({
  ...agentBaseShape,
  type: z.literal('permission-request'),
  callId: z.string().check(z.minLength(1)),
  toolName: z.string().check(z.minLength(1)),
  title: z.string(),
  description: z.optional(z.string()),
  args: z.optional(ArgsSchema),
  options: z.array(PermissionOptionSchema).check(z.minLength(1)),
  /** Extension: what the command would do, from a run on a copy of the workspace (docs/sandbox.md). */
  preview: z.optional(PermissionPreviewSchema),
  /** Extension: the agent's seal of its own record (docs/permissions.md, "The agent's own records"). */
  seal: z.optional(z.string()),
});

/** `photo` from the agent. */
export const AgentPhotoSchema = z.object({ ...agentBaseShape, ...photoShape });
/** `video` from the agent. */
export const AgentVideoSchema = z.object({ ...agentBaseShape, ...videoShape });
/** `file` from the agent. */
export const AgentFileSchema = z.object({ ...agentBaseShape, ...fileShape });

/**
 * `prompt-taken` (extension): the agent took the user's prompt `promptId`, stored at `seq`; a
 * successor's prompts start after the last one taken, so each prompt reaches one process once
 * (docs/recovery.md, "Prompts"). Like `service`, it needs no turn.
 */
export const PromptTakenSchema = z.object({
  ...messageBaseShape,
  role: z.literal('agent'),
  type: z.literal('prompt-taken'),
  promptId: z.string().check(z.minLength(1)),
  seq: z.int().check(z.nonnegative()),
});

/** `service`: system messages from the agent side; with `prompt-taken`, the agent messages where `turn` is optional. */
export const ServiceSchema = z.object({
  ...messageBaseShape,
  role: z.literal('agent'),
  type: z.literal('service'),
  text: z.string(),
  /** Extension: the agent's seal of its own record (docs/permissions.md, "The agent's own records"). */
  seal: z.optional(z.string()),
});
