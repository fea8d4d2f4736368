import * as z from '../zod.js';

/** Fields of a `photo` message (docs/protocol.md, "photo"). */
export const photoShape = {
  type: z.literal('photo'),
  /** Server upload reference, or `machine-file://<absolute path>` for a file left on the agent's machine. */
  ref: z.string().check(z.minLength(1)),
  /** Standard base64 ThumbHash, for the instant placeholder. */
  thumbhash: z.string(),
  width: z.int().check(z.positive()),
  height: z.int().check(z.positive()),
};

/** Fields of a `video` message (docs/protocol.md, "video"). */
export const videoShape = {
  type: z.literal('video'),
  ref: z.string().check(z.minLength(1)),
  thumbhash: z.string(),
  width: z.int().check(z.positive()),
  height: z.int().check(z.positive()),
  durationMs: z.number().check(z.nonnegative()),
  mimeType: z.string().check(z.minLength(1)),
  size: z.int().check(z.nonnegative()),
};

/** Fields of a `file` message (docs/protocol.md, "file"). */
export const fileShape = {
  type: z.literal('file'),
  ref: z.string().check(z.minLength(1)),
  name: z.string().check(z.minLength(1)),
  size: z.int().check(z.nonnegative()),
  mimeType: z.string().check(z.minLength(1)),
};
