import type { HappyHttp } from './httpClient.js';
import type { AppendAck, AppendOptions, OutgoingRecord, ReadPage, StoredRecord } from '../ports/transport.js';
import { expectShape } from '../wire/expectShape.js';
import { AppendResponseSchema, MAX_READ_LIMIT, ReadResponseSchema } from '../wire/messages.js';
import type { StoredMessage } from '../wire/messages.js';
import { NewMessageBodySchema } from '../wire/updates.js';
import { appendAcksOf, isNewMessageBody } from './recordShapes.js';

/** `POST /v3/sessions/:id/messages`: one batch, idempotent per `localId` (docs/wire.md §5.2). */
export async function appendSessionMessages(
  http: HappyHttp,
  sessionId: string,
  records: readonly OutgoingRecord[],
  options: AppendOptions = {},
): Promise<readonly AppendAck[]> {
  const path = `/v3/sessions/${encodeURIComponent(sessionId)}/messages`;
  const answer = await http.request<unknown>(
    'POST',
    path,
    { messages: records.map((r) => ({ content: r.content, localId: r.localId })) },
    options,
  );
  // Checked by hand when it is the shape the schema accepts; anything else the schema decides.
  const acks = appendAcksOf(answer);
  if (acks) return acks;
  const { messages } = expectShape(AppendResponseSchema, answer, `POST ${path}`);
  return messages.flatMap((m) => (m.localId === null ? [] : [{ localId: m.localId, seq: m.seq, id: m.id }]));
}

/** `GET /v3/sessions/:id/messages?after_seq=`: one page, ascending (docs/wire.md §5.2). */
export async function readSessionMessages(
  http: HappyHttp,
  sessionId: string,
  afterSeq: number,
  options: { readonly limit?: number } = {},
): Promise<ReadPage> {
  const limit = Math.min(Math.max(Math.floor(options.limit ?? 100), 1), MAX_READ_LIMIT);
  const after = Math.max(0, Math.floor(afterSeq));
  const path = `/v3/sessions/${encodeURIComponent(sessionId)}/messages?after_seq=${after}&limit=${limit}`;
  const page = expectShape(ReadResponseSchema, await http.request<unknown>('GET', path), `GET ${path}`);
  return {
    records: page.messages.map((m) => ({
      seq: m.seq,
      localId: m.localId,
      content: m.content.c,
      id: m.id,
      createdAt: m.createdAt,
    })),
    hasMore: page.hasMore,
  };
}

/** The stored record a socket `update` announces for `sessionId`, if it is a `new-message` of it (docs/wire.md §2.3). */
export function newMessageRecord(update: unknown, sessionId: string): StoredRecord | undefined {
  const body = (update as { body?: unknown } | null)?.body;
  // Checked by hand when it is the shape the schema accepts (every echo of the session's own
  // records comes this way); anything else the schema decides.
  let checked: { readonly sid: string; readonly message: StoredMessage } | undefined;
  if (isNewMessageBody(body)) checked = body;
  else {
    const parsed = NewMessageBodySchema.safeParse(body);
    if (parsed.success) checked = parsed.data;
  }
  if (checked === undefined || checked.sid !== sessionId) return undefined;
  const m = checked.message;
  return { seq: m.seq, localId: m.localId, content: m.content.c, id: m.id, createdAt: m.createdAt };
}
