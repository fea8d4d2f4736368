import * as z from '../zod.js';

/** The server's largest page of a message read (docs/wire.md §5.2). */
export const MAX_READ_LIMIT = 500;
/** The server's largest batch of a message write (docs/wire.md §5.2). */
export const MAX_APPEND_BATCH = 100;

/** Message content on the wire: always the encrypted envelope (docs/wire.md §5.1). */
export const EncryptedContentSchema = z.object({ t: z.literal('encrypted'), c: z.string() });

/** A stored message as the read routes and `new-message` return it (docs/wire.md §5.2). */
export const StoredMessageSchema = z.object({
  id: z.string(),
  seq: z.int().check(z.positive()),
  localId: z.nullable(z.string()),
  content: EncryptedContentSchema,
  createdAt: z.number(),
  updatedAt: z.number(),
});
/** A stored message. */
export type StoredMessage = z.output<typeof StoredMessageSchema>;

/** `POST /v3/sessions/:id/messages` body: 1 to 100 records, idempotent per `localId` (docs/wire.md §5.2). */
export const AppendMessagesBodySchema = z.object({
  messages: z
    .array(z.object({ content: z.string(), localId: z.string().check(z.minLength(1)) }))
    .check(z.minLength(1), z.maxLength(MAX_APPEND_BATCH)),
});
/** A `POST /v3/sessions/:id/messages` body. */
export type AppendMessagesBody = z.output<typeof AppendMessagesBodySchema>;

/**
 * One row of a write's answer: the row without its content. A row without `localId` is read as
 * `localId: null`: it acknowledges no record, so the writer rejects the delivery of each record
 * it finds no row for with `transport.bad_response` rather than refuse the whole answer.
 */
export const AppendedMessageSchema = z.extend(z.omit(StoredMessageSchema, { content: true }), {
  localId: z._default(z.nullable(z.string()), null),
});
/** One row of a write's answer. */
export type AppendedMessage = z.output<typeof AppendedMessageSchema>;

/** `POST /v3/sessions/:id/messages` answer: existing and new rows, by seq (docs/wire.md §5.2). */
export const AppendResponseSchema = z.object({ messages: z.array(AppendedMessageSchema) });

/** `GET /v3/sessions/:id/messages` answer. */
export const ReadResponseSchema = z.object({ messages: z.array(StoredMessageSchema), hasMore: z.boolean() });
/** A `GET /v3/sessions/:id/messages` answer. */
export type ReadResponse = z.output<typeof ReadResponseSchema>;
