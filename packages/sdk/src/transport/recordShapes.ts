import type { AppendAck } from '../ports/transport.js';
import type { StoredMessage } from '../wire/messages.js';

/**
 * Checks by hand of the two server answers a writer gets per record: the `new-message` update of
 * each record it stores (its own echo, docs/wire.md §2.3) and the rows of a write's answer
 * (docs/wire.md §5.2). They are the shapes of `NewMessageBodySchema` and `AppendResponseSchema`,
 * checked field by field instead of parsed into a copy by zod, which was most of what an echo cost
 * the session after socket.io's own parse (docs/performance.md, "Cutting the client's CPU per
 * message").
 *
 * Sound, not complete: each says yes only to what the schema accepts and reads the same way, and
 * the caller gives anything else to the schema, whose result (and issues) stand.
 * `test/transport/recordShapes.test.ts` holds them to the schemas. What they check comes from
 * `JSON.parse` (plain data), so reading a field again gives what was checked.
 */

/** A `new-message` body that `NewMessageBodySchema` accepts, with the same fields. */
export interface NewMessageBody {
  readonly t: 'new-message';
  readonly sid: string;
  readonly message: StoredMessage;
}

/** True when `body` is a `new-message` body the schema accepts as it is. */
export function isNewMessageBody(body: unknown): body is NewMessageBody {
  if (!isObject(body) || body.t !== 'new-message' || typeof body.sid !== 'string') return false;
  const message = body.message;
  if (!isStoredRow(message) || (message.localId !== null && typeof message.localId !== 'string'))
    return false;
  const content = message.content;
  return isObject(content) && content.t === 'encrypted' && typeof content.c === 'string';
}

/**
 * The acks of a write's answer that `AppendResponseSchema` accepts, one per row with a `localId`
 * (a row without one, or with `null`, acknowledges no record); undefined when the answer needs the
 * schema to say (the caller parses it then).
 */
export function appendAcksOf(answer: unknown): AppendAck[] | undefined {
  if (!isObject(answer) || !Array.isArray(answer.messages)) return undefined;
  const rows: unknown[] = answer.messages;
  const acks: AppendAck[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    if (!isStoredRow(row)) return undefined;
    const localId = row.localId;
    if (localId === null || localId === undefined) continue;
    if (typeof localId !== 'string') return undefined;
    acks.push({ localId, seq: row.seq as number, id: row.id as string });
  }
  return acks;
}

/** zod's object: anything of type object but `null` and arrays. */
function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The fields every stored row has: `id`, a positive safe-integer `seq`, finite `createdAt` and `updatedAt`. */
function isStoredRow(row: unknown): row is Record<string, unknown> {
  if (!isObject(row) || typeof row.id !== 'string') return false;
  const seq = row.seq;
  return (
    Number.isSafeInteger(seq) &&
    (seq as number) > 0 &&
    Number.isFinite(row.createdAt) &&
    Number.isFinite(row.updatedAt)
  );
}
