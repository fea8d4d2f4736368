import type { RelayDatabase } from '../db.js';
import { newId } from '../ids.js';

/** A stored session; `metadata`, `agentState` and `dataEncryptionKey` are ciphertext (docs/wire.md §4). */
export interface SessionRecord {
  id: string;
  tag: string;
  accountId: string;
  metadata: string;
  metadataVersion: number;
  agentState: string | null;
  agentStateVersion: number;
  dataEncryptionKey: Buffer | null;
  seq: number;
  active: boolean;
  lastActiveAt: number;
  createdAt: number;
  updatedAt: number;
}

interface Row {
  id: string;
  tag: string;
  account_id: string;
  metadata: string;
  metadata_version: number;
  agent_state: string | null;
  agent_state_version: number;
  data_encryption_key: Buffer | null;
  seq: number;
  active: number;
  last_active_at: number;
  created_at: number;
  updated_at: number;
}

function toRecord(row: Row): SessionRecord {
  return {
    id: row.id,
    tag: row.tag,
    accountId: row.account_id,
    metadata: row.metadata,
    metadataVersion: row.metadata_version,
    agentState: row.agent_state,
    agentStateVersion: row.agent_state_version,
    dataEncryptionKey: row.data_encryption_key,
    seq: row.seq,
    active: row.active === 1,
    lastActiveAt: row.last_active_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

/** Options of {@link SessionStore.listPage}. */
export interface SessionPageQuery {
  /** Only ids strictly below this one (the decoded cursor). */
  beforeId?: string;
  /** Only sessions updated strictly after this time. */
  changedSince?: number;
  limit: number;
}

/**
 * Sessions of all accounts. Every lookup that serves a client takes the account id, so a session
 * of another account is indistinguishable from a missing one.
 */
export class SessionStore {
  constructor(private readonly db: RelayDatabase) {}

  /** The session `id` when `accountId` owns it. */
  findOwned(id: string, accountId: string): SessionRecord | undefined {
    const row = this.db
      .prepare('SELECT * FROM sessions WHERE id = ? AND account_id = ?')
      .get(id, accountId) as Row | undefined;
    return row ? toRecord(row) : undefined;
  }

  /** The session of `accountId` with `tag`. */
  findByTag(accountId: string, tag: string): SessionRecord | undefined {
    const row = this.db
      .prepare('SELECT * FROM sessions WHERE account_id = ? AND tag = ?')
      .get(accountId, tag) as Row | undefined;
    return row ? toRecord(row) : undefined;
  }

  /** Creates a session; versions start at 0 and agentState at null (§4.1). */
  create(input: {
    accountId: string;
    tag: string;
    metadata: string;
    dataEncryptionKey: Buffer | null;
  }): SessionRecord {
    const now = Date.now();
    const row = this.db
      .prepare(
        `INSERT INTO sessions (id, tag, account_id, metadata, data_encryption_key, last_active_at, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      )
      .get(
        newId(),
        input.tag,
        input.accountId,
        input.metadata,
        input.dataEncryptionKey,
        now,
        now,
        now,
      ) as Row;
    return toRecord(row);
  }

  /** Newest `updatedAt` first, like `GET /v1/sessions`. */
  listRecent(accountId: string, limit: number): SessionRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM sessions WHERE account_id = ? ORDER BY updated_at DESC, id DESC LIMIT ?')
      .all(accountId, limit) as Row[];
    return rows.map(toRecord);
  }

  /** Active sessions seen after `since`, most recently active first (`GET /v2/sessions/active`). */
  listActive(accountId: string, since: number, limit: number): SessionRecord[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM sessions WHERE account_id = ? AND active = 1 AND last_active_at > ?
         ORDER BY last_active_at DESC, id DESC LIMIT ?`,
      )
      .all(accountId, since, limit) as Row[];
    return rows.map(toRecord);
  }

  /** Sessions by id descending, for the cursor pagination of `GET /v2/sessions`. */
  listPage(accountId: string, query: SessionPageQuery): SessionRecord[] {
    const clauses = ['account_id = ?'];
    const args: (string | number)[] = [accountId];
    if (query.changedSince !== undefined) {
      clauses.push('updated_at > ?');
      args.push(query.changedSince);
    }
    if (query.beforeId !== undefined) {
      clauses.push('id < ?');
      args.push(query.beforeId);
    }
    args.push(query.limit);
    const rows = this.db
      .prepare(`SELECT * FROM sessions WHERE ${clauses.join(' AND ')} ORDER BY id DESC LIMIT ?`)
      .all(...args) as Row[];
    return rows.map(toRecord);
  }

  /** Compare-and-set of the metadata; false when `expectedVersion` is no longer current. */
  updateMetadata(id: string, expectedVersion: number, metadata: string): boolean {
    const result = this.db
      .prepare(
        `UPDATE sessions SET metadata = ?, metadata_version = metadata_version + 1, updated_at = ?
         WHERE id = ? AND metadata_version = ?`,
      )
      .run(metadata, Date.now(), id, expectedVersion);
    return result.changes === 1;
  }

  /** Compare-and-set of the agent state; false when `expectedVersion` is no longer current. */
  updateAgentState(id: string, expectedVersion: number, agentState: string | null): boolean {
    const result = this.db
      .prepare(
        `UPDATE sessions SET agent_state = ?, agent_state_version = agent_state_version + 1, updated_at = ?
         WHERE id = ? AND agent_state_version = ?`,
      )
      .run(agentState, Date.now(), id, expectedVersion);
    return result.changes === 1;
  }

  /** Records liveness: `active` and the time of the last sign of life. */
  setActivity(id: string, active: boolean, at: number): void {
    this.db
      .prepare('UPDATE sessions SET active = ?, last_active_at = ?, updated_at = ? WHERE id = ?')
      .run(active ? 1 : 0, at, Date.now(), id);
  }

  /** Archives a session of `accountId`; false when it is not theirs or does not exist. */
  archive(id: string, accountId: string, at: number): boolean {
    const result = this.db
      .prepare(
        'UPDATE sessions SET active = 0, last_active_at = ?, updated_at = ? WHERE id = ? AND account_id = ?',
      )
      .run(at, Date.now(), id, accountId);
    return result.changes === 1;
  }

  /** Reserves `count` consecutive message seqs and returns the first. Call inside a transaction. */
  allocateSeqs(id: string, count: number): number {
    const row = this.db
      .prepare('UPDATE sessions SET seq = seq + ?, updated_at = ? WHERE id = ? RETURNING seq')
      .get(count, Date.now(), id) as { seq: number };
    return row.seq - count + 1;
  }

  /** Deletes a session of `accountId` with its messages and usage reports; false when not theirs. */
  delete(id: string, accountId: string): boolean {
    return this.db.transaction(() => {
      if (!this.findOwned(id, accountId)) return false;
      this.db.prepare('DELETE FROM session_messages WHERE session_id = ?').run(id);
      this.db.prepare('DELETE FROM usage_reports WHERE session_id = ?').run(id);
      this.db.prepare('DELETE FROM sessions WHERE id = ?').run(id);
      return true;
    })();
  }

  /** Active sessions whose last sign of life is at or before `before` (the inactivity sweep, §4.5). */
  listStale(before: number): SessionRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM sessions WHERE active = 1 AND last_active_at <= ?')
      .all(before) as Row[];
    return rows.map(toRecord);
  }

  /** Sets `active = false` if still active; true when this call changed it. */
  deactivateIfActive(id: string): boolean {
    const result = this.db
      .prepare('UPDATE sessions SET active = 0, updated_at = ? WHERE id = ? AND active = 1')
      .run(Date.now(), id);
    return result.changes === 1;
  }
}
