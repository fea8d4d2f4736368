import type { RelayDatabase } from '../db.js';
import { newId } from '../ids.js';

/** A push event as the relay recorded it (docs/wire.md §9 item 4). */
export interface PushEventRecord {
  id: string;
  accountId: string;
  sessionId: string;
  kind: string;
  title: string;
  body: string;
  data: Record<string, unknown> | null;
  result: string;
  createdAt: number;
}

/** The `{tokens, cost}` of a usage report (§9 item 3). */
export interface UsageData {
  tokens: Record<string, unknown>;
  cost: Record<string, unknown>;
}

/** Outcome of {@link ActivityStore.upsertUsage}. */
export interface UsageReportRecord {
  id: string;
  createdAt: number;
  updatedAt: number;
}

/**
 * Side records that only exist so the relay keeps what the real server keeps: push events (the
 * relay has no push service, so it records them) and usage reports.
 */
export class ActivityStore {
  constructor(private readonly db: RelayDatabase) {}

  /** Records a push event. */
  recordPush(event: Omit<PushEventRecord, 'id' | 'createdAt'>): PushEventRecord {
    const record: PushEventRecord = { ...event, id: newId(), createdAt: Date.now() };
    this.db
      .prepare(
        `INSERT INTO push_events (id, account_id, session_id, kind, title, body, data, result, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        record.id,
        record.accountId,
        record.sessionId,
        record.kind,
        record.title,
        record.body,
        record.data === null ? null : JSON.stringify(record.data),
        record.result,
        record.createdAt,
      );
    return record;
  }

  /** Upserts the report of `(account, session, key)`. */
  upsertUsage(accountId: string, sessionId: string | null, key: string, data: UsageData): UsageReportRecord {
    const now = Date.now();
    const row = this.db
      .prepare(
        `INSERT INTO usage_reports (id, account_id, session_id, key, data, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (account_id, IFNULL(session_id, ''), key)
         DO UPDATE SET data = excluded.data, updated_at = excluded.updated_at
         RETURNING id, created_at, updated_at`,
      )
      .get(newId(), accountId, sessionId, key, JSON.stringify(data), now, now) as {
      id: string;
      created_at: number;
      updated_at: number;
    };
    return { id: row.id, createdAt: row.created_at, updatedAt: row.updated_at };
  }
}
