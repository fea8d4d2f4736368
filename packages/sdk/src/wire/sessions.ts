import * as z from '../zod.js';

/** `POST /v1/sessions` body (docs/wire.md §4.1): a fresh tag, encrypted metadata, the wrapped data key. */
export const CreateSessionBodySchema = z.object({
  tag: z.string(),
  metadata: z.string(),
  agentState: z.nullish(z.string()),
  dataEncryptionKey: z.nullish(z.string()),
});
/** A `POST /v1/sessions` body. */
export type CreateSessionBody = z.output<typeof CreateSessionBodySchema>;

/** A session row as the server returns it (docs/wire.md §4.1); the v1 routes add `lastMessage: null`. */
export const SessionRowSchema = z.object({
  id: z.string().check(z.minLength(1)),
  seq: z.int().check(z.nonnegative()),
  metadata: z.string(),
  metadataVersion: z.int().check(z.nonnegative()),
  agentState: z.nullable(z.string()),
  agentStateVersion: z.int().check(z.nonnegative()),
  dataEncryptionKey: z.nullable(z.string()),
  active: z.boolean(),
  activeAt: z.number(),
  createdAt: z.number(),
  updatedAt: z.number(),
  lastMessage: z.optional(z.null()),
});
/** A session row. */
export type SessionRow = z.output<typeof SessionRowSchema>;

/** `POST /v1/sessions` answer. */
export const CreateSessionResponseSchema = z.object({ session: SessionRowSchema });

/** `GET /v1/sessions` answer: the app's list, newest first, at most 150 (docs/wire.md §4.1). */
export const SessionListSchema = z.object({ sessions: z.array(SessionRowSchema) });

/** `GET /v2/sessions` answer: one page by id descending (docs/wire.md §4.1). */
export const SessionPageSchema = z.object({
  sessions: z.array(SessionRowSchema),
  nextCursor: z.nullable(z.string()),
  hasNext: z.boolean(),
});
