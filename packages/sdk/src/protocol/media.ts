import { z } from 'zod';

/** Fields of a `photo` message (docs/protocol.md, "photo"). */
export const photoShape = {
  type: z.literal('photo'),
  /** Server upload reference, or `machine-file://<absolute path>` for a file left on the agent's machine. */
  ref: z.string().min(1),
  /** Standard base64 ThumbHash, for the instant placeholder. */
  thumbhash: z.string(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
};

/** Fields of a `video` message (docs/protocol.md, "video"). */
export const videoShape = {
  type: z.literal('video'),
  ref: z.string().min(1),
  thumbhash: z.string(),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  durationMs: z.number().nonnegative(),
  mimeType: z.string().min(1),
  size: z.number().int().nonnegative(),
};

/** Fields of a `file` message (docs/protocol.md, "file"). */
export const fileShape = {
  type: z.literal('file'),
  ref: z.string().min(1),
  name: z.string().min(1),
  size: z.number().int().nonnegative(),
  mimeType: z.string().min(1),
};
