import type { RelayDatabase } from '../db.js';
import { newId } from '../ids.js';
import type { SessionStore } from './sessions.js';

/** A stored message; `content` is the b64 ciphertext exactly as sent (docs/wire.md §5.1). */
export interface MessageRecord {
  id: string;
  sessionId: string;
  seq: number;
  localId: string | null;
  content: string;
  createdAt: number;
  updatedAt: number;
}

/** One message of a v3 write batch. */
export interface NewMessage {
  content: string;
  localId: string;
}

/** Outcome of {@link MessageStore.appendBatch}. */
export interface AppendResult {
  /** Existing and new rows of the batch, sorted by seq. */
  rows: MessageRecord[];
  /** Only the rows this call inserted, in seq order. */
  created: MessageRecord[];
}

interface Row {
  id: string;
  session_id: string;
  seq: number;
  local_id: string | null;
  content: string;
  created_at: number;
  updated_at: number;
}

function toRecord(row: Row): MessageRecord {
  return {
    id: row.id,
    sessionId: row.session_id,
    seq: row.seq,
    localId: row.local_id,
    content: row.content,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Messages of sessions, numbered by a per-session seq that starts at 1 (§5.1). */
export class MessageStore {
  constructor(
    private readonly db: RelayDatabase,
    private readonly sessions: SessionStore,
  ) {}

  /**
   * The v3 write (§5.2) in one transaction: the first occurrence of a `localId` in the batch
   * wins, a `localId` already stored in the session returns the stored row, and new rows get
   * consecutive seqs in array order.
   */
  appendBatch(sessionId: string, messages: readonly NewMessage[]): AppendResult {
    const firstByLocalId = new Map<string, NewMessage>();
    for (const message of messages) {
      if (!firstByLocalId.has(message.localId)) firstByLocalId.set(message.localId, message);
    }
    return this.db.transaction(() => {
      const existing: MessageRecord[] = [];
      const fresh: NewMessage[] = [];
      for (const message of firstByLocalId.values()) {
        const row = this.findByLocalId(sessionId, message.localId);
        if (row) existing.push(row);
        else fresh.push(message);
      }
      const created: MessageRecord[] = [];
      if (fresh.length > 0) {
        const firstSeq = this.sessions.allocateSeqs(sessionId, fresh.length);
        fresh.forEach((message, index) => {
          created.push(this.insert(sessionId, firstSeq + index, message.content, message.localId));
        });
      }
      const rows = [...existing, ...created].sort((a, b) => a.seq - b.seq);
      return { rows, created };
    })();
  }

  /**
   * The legacy socket write (§5.3): the seq is allocated before the duplicate check, so a
   * repeated `localId` burns a seq, as on the real server. Returns null for a duplicate.
   */
  appendLegacy(sessionId: string, content: string, localId: string | null): MessageRecord | null {
    return this.db.transaction(() => {
      const seq = this.sessions.allocateSeqs(sessionId, 1);
      if (localId !== null && this.findByLocalId(sessionId, localId)) return null;
      return this.insert(sessionId, seq, content, localId);
    })();
  }

  /** Messages with seq > `afterSeq`, ascending, at most `limit`. */
  listAfter(sessionId: string, afterSeq: number, limit: number): MessageRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM session_messages WHERE session_id = ? AND seq > ? ORDER BY seq ASC LIMIT ?')
      .all(sessionId, afterSeq, limit) as Row[];
    return rows.map(toRecord);
  }

  /** Messages with seq < `beforeSeq`, descending, at most `limit`. */
  listBefore(sessionId: string, beforeSeq: number, limit: number): MessageRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM session_messages WHERE session_id = ? AND seq < ? ORDER BY seq DESC LIMIT ?')
      .all(sessionId, beforeSeq, limit) as Row[];
    return rows.map(toRecord);
  }

  /** The newest messages by creation time (the legacy `GET /v1/sessions/:id/messages`). */
  listNewest(sessionId: string, limit: number): MessageRecord[] {
    const rows = this.db
      .prepare(
        'SELECT * FROM session_messages WHERE session_id = ? ORDER BY created_at DESC, seq DESC LIMIT ?',
      )
      .all(sessionId, limit) as Row[];
    return rows.map(toRecord);
  }

  private findByLocalId(sessionId: string, localId: string): MessageRecord | undefined {
    const row = this.db
      .prepare('SELECT * FROM session_messages WHERE session_id = ? AND local_id = ?')
      .get(sessionId, localId) as Row | undefined;
    return row ? toRecord(row) : undefined;
  }

  private insert(sessionId: string, seq: number, content: string, localId: string | null): MessageRecord {
    const now = Date.now();
    const row = this.db
      .prepare(
        `INSERT INTO session_messages (id, session_id, seq, local_id, content, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(newId(), sessionId, seq, localId, content, now, now) as Row;
    return toRecord(row);
  }
}
