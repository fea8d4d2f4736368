import { parseSessionMessage } from '../protocol/parse.js';
import { legacyUserText } from '../protocol/v1/fromV1.js';
import type { UserMessage } from '../protocol/sessionMessage.js';
import type { StoredRecord } from '../ports/transport.js';

/** A user message as it arrived, with where it came from. */
export interface IncomingUserMessage {
  /** The message as typed v2. */
  readonly message: UserMessage;
  readonly seq: number;
  readonly localId: string | null;
  /**
   * The legacy record's `meta` (`sentFrom`, `permissionMode`, `model`, `effort`, …, docs/wire.md
   * §6.1); empty for v2 records.
   */
  readonly meta: Readonly<Record<string, unknown>>;
  /** `legacy` for the app's `{role:'user', content:{type:'text'}}` records, `v2` otherwise. */
  readonly format: 'v2' | 'legacy';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Turns a decrypted record into a v2 user message, or null when it is not one: a v2 user-role
 * message is taken as is; the legacy user text the Happy app writes today (docs/wire.md §6.1) is
 * normalised to `{role:'user', type:'text', text, id, time}`, where `id` is the record's
 * `localId` (the app's dedupe key, §9 item 11) and `time` the server's `createdAt`.
 */
export function toIncomingUserMessage(value: unknown, record: StoredRecord): IncomingUserMessage | null {
  const parsed = parseSessionMessage(value);
  if (parsed.ok) {
    if (parsed.value.role !== 'user') return null;
    return { message: parsed.value, seq: record.seq, localId: record.localId, meta: {}, format: 'v2' };
  }
  if (!isObject(value)) return null;
  const legacy = legacyUserText(value, {
    seq: record.seq,
    localId: record.localId,
    createdAt: record.createdAt ?? Date.now(),
    ...(record.id !== undefined ? { id: record.id } : {}),
  });
  if (legacy?.kind !== 'message' || legacy.message.role !== 'user') return null;
  return {
    message: legacy.message,
    seq: record.seq,
    localId: record.localId,
    meta: isObject(value.meta) ? value.meta : {},
    format: 'legacy',
  };
}
