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

/** `permission-response`: the user's answer to a `permission-request`, by option id. */
export const PermissionResponseSchema = z.object({
  ...userBaseShape,
  type: z.literal('permission-response'),
  callId: z.string().min(1),
  optionId: z.string().min(1),
});

/** `photo` from the user. */
export const UserPhotoSchema = z.object({ ...userBaseShape, ...photoShape });
/** `video` from the user. */
export const UserVideoSchema = z.object({ ...userBaseShape, ...videoShape });
/** `file` from the user. */
export const UserFileSchema = z.object({ ...userBaseShape, ...fileShape });
