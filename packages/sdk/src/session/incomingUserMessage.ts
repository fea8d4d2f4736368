import { parseSessionMessage } from '../protocol/parse.js';
import type { UserMessage } from '../protocol/sessionMessage.js';
import type { StoredRecord } from '../ports/transport.js';
import { fromLegacyUserText } from '../protocol/legacyUserText.js';
import { legacyStamp } from '../stream/legacyStamp.js';

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

/**
 * Turns a decrypted record into a v2 user message, or null when it is not one: a v2 user-role
 * message is taken as is; the legacy user text the Happy app writes today (docs/wire.md §6.1) is
 * normalised to `{role:'user', type:'text', text, id, time}` (see {@link fromLegacyUserText}).
 */
export function toIncomingUserMessage(value: unknown, record: StoredRecord): IncomingUserMessage | null {
  const parsed = parseSessionMessage(value);
  if (parsed.ok) {
    if (parsed.value.role !== 'user') return null;
    return { message: parsed.value, seq: record.seq, localId: record.localId, meta: {}, format: 'v2' };
  }
  const legacy = fromLegacyUserText(value, legacyStamp(record));
  if (!legacy) return null;
  return { ...legacy, seq: record.seq, localId: record.localId, format: 'legacy' };
}
