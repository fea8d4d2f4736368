import { z } from 'zod';
import { userBaseShape } from './base.js';
import { fileShape, photoShape, videoShape } from './media.js';

/** `text` from the user: a prompt. User messages never set `thinking`. */
export const UserTextSchema = z.object({
  ...userBaseShape,
  type: z.literal('text'),
  text: z.string(),
  thinking: z.never().optional(),
});

/**
 * `permission-response`: the user's answer to a `permission-request`, by option id.
 *
 * Extension (optional, so plain v2 readers ignore it): `via` marks the record the agent's runtime
 * appended for an answer that reached it by RPC or from the local program. That record is the
 * authoritative one for its call, even where another device's answer landed in the stream first;
 * without one, the first user answer in stream order is authoritative.
 */
export const PermissionResponseSchema = z.object({
  ...userBaseShape,
  type: z.literal('permission-response'),
  callId: z.string().min(1),
  optionId: z.string().min(1),
  via: z.enum(['rpc', 'local']).optional(),
});

/** `photo` from the user. */
export const UserPhotoSchema = z.object({ ...userBaseShape, ...photoShape });
/** `video` from the user. */
export const UserVideoSchema = z.object({ ...userBaseShape, ...videoShape });
/** `file` from the user. */
export const UserFileSchema = z.object({ ...userBaseShape, ...fileShape });
