import * as z from '../zod.js';
import { userBaseShape } from './base.js';
import { fileShape, photoShape, videoShape } from './media.js';

/** `text` from the user: a prompt. User messages never set `thinking`. */
export const UserTextSchema = z.object({
  ...userBaseShape,
  type: z.literal('text'),
  text: z.string(),
  thinking: z.optional(z.never()),
});

/** The channel an applied answer came by, on the agent's record of it (see {@link PermissionResponseSchema}). */
export const PermissionViaSchema = z.enum(['stream', 'rpc', 'local']);

/**
 * `permission-response`: the user's answer to a `permission-request`, by option id.
 *
 * Extensions (optional, so plain v2 readers ignore them; docs/permissions.md, "One arbitration"):
 * - `via` marks the agent's own record of an answer it applied, and the channel the answer came by
 *   (`stream`: another client's response; `rpc`; `local`: the agent's own program). The agent
 *   appends one for every answer it applies, at that moment; the first one after the request is
 *   the decision, live and on replay. A response without `via` is an answer the agent has not
 *   confirmed (yet).
 * - `updatedInput`, on the agent's record, holds the arguments that ran when the user edited them
 *   (the request's `args` with the edits merged over them). A client may send edits the same way.
 * - `requestId` names the `permission-request` record answered (its `id`): an answer for another
 *   request of the same call is refused. Without it, an answer counts only for a call's first request.
 * - `seal`, on the agent's record, is its seal (docs/permissions.md, "The agent's own records"):
 *   only a sealed record is the agent's, whatever its `via` says.
 */
export const PermissionResponseSchema = z.object({
  ...userBaseShape,
  type: z.literal('permission-response'),
  callId: z.string().check(z.minLength(1)),
  optionId: z.string().check(z.minLength(1)),
  via: z.optional(PermissionViaSchema),
  updatedInput: z.optional(z.record(z.string(), z.unknown())),
  requestId: z.optional(z.string().check(z.minLength(1))),
  seal: z.optional(z.string()),
});

/** `photo` from the user. */
export const UserPhotoSchema = z.object({ ...userBaseShape, ...photoShape });
/** `video` from the user. */
export const UserVideoSchema = z.object({ ...userBaseShape, ...videoShape });
/** `file` from the user. */
export const UserFileSchema = z.object({ ...userBaseShape, ...fileShape });
