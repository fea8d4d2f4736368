import * as z from '../zod.js';
import { StoredMessageSchema } from './messages.js';

/** `update new-message` body (docs/wire.md §2.3). */
export const NewMessageBodySchema = z.object({
  t: z.literal('new-message'),
  sid: z.string(),
  message: StoredMessageSchema,
});

/** `update update-session` body (docs/wire.md §2.3): the new encrypted value of each side record that changed. */
export const UpdateSessionBodySchema = z.object({
  t: z.literal('update-session'),
  id: z.string(),
  metadata: z.nullish(z.object({ value: z.string(), version: z.int().check(z.nonnegative()) })),
  agentState: z.nullish(z.object({ value: z.nullable(z.string()), version: z.int().check(z.nonnegative()) })),
});
/** An `update-session` body. */
export type UpdateSessionBody = z.output<typeof UpdateSessionBodySchema>;
