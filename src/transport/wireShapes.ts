import { z } from 'zod';
import { SdkError } from '../errors.js';

/** A session row as the server returns it (happy-wire §4.1). */
export const SessionRowSchema = z.object({
  id: z.string().min(1),
  seq: z.number().int().nonnegative(),
  metadata: z.string(),
  metadataVersion: z.number().int().nonnegative(),
  agentState: z.string().nullable(),
  agentStateVersion: z.number().int().nonnegative(),
  dataEncryptionKey: z.string().nullable(),
});
/** A session row. */
export type SessionRow = z.infer<typeof SessionRowSchema>;

/** `POST /v1/sessions` answer. */
export const CreateSessionResponseSchema = z.object({ session: SessionRowSchema });

/** `GET /v2/sessions` answer. */
export const SessionPageSchema = z.object({
  sessions: z.array(SessionRowSchema),
  nextCursor: z.string().nullable(),
  hasNext: z.boolean(),
});

/** `POST /v3/sessions/:id/messages` answer (happy-wire §5.2). */
export const AppendResponseSchema = z.object({
  messages: z.array(
    z.object({ id: z.string(), seq: z.number().int().positive(), localId: z.string().nullable() }),
  ),
});

/** A stored message as read back (happy-wire §5.1). */
export const StoredMessageSchema = z.object({
  id: z.string(),
  seq: z.number().int().positive(),
  localId: z.string().nullable(),
  content: z.object({ t: z.literal('encrypted'), c: z.string() }),
  createdAt: z.number(),
});

/** `GET /v3/sessions/:id/messages` answer. */
export const ReadResponseSchema = z.object({
  messages: z.array(StoredMessageSchema),
  hasMore: z.boolean(),
});

/** `POST /v1/auth` answer (happy-wire §1.2). */
export const AuthResponseSchema = z.object({ token: z.string().min(1) });

/** `update new-message` body (happy-wire §2.3). */
export const NewMessageBodySchema = z.object({
  t: z.literal('new-message'),
  sid: z.string(),
  message: StoredMessageSchema,
});

/** `update update-session` body (happy-wire §2.3). */
export const UpdateSessionBodySchema = z.object({
  t: z.literal('update-session'),
  id: z.string(),
  metadata: z.object({ value: z.string(), version: z.number().int().nonnegative() }).nullish(),
  agentState: z.object({ value: z.string().nullable(), version: z.number().int().nonnegative() }).nullish(),
});

/**
 * Checks a 2xx answer against its expected shape.
 *
 * @throws {SdkError} `transport.bad_response` when the server answered something else.
 */
export function expectShape<T>(schema: z.ZodType<T>, value: unknown, what: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  throw new SdkError('transport.bad_response', `The server's answer to ${what} has an unexpected shape.`, {
    hint: 'check that HAPPY_SERVER_URL points at a Happy-compatible server',
    details: { issues: parsed.error.issues.slice(0, 5).map((i) => `${i.path.join('.')}: ${i.message}`) },
  });
}
