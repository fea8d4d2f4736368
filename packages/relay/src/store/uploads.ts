import type { RelayDatabase } from '../db.js';

/** Why a PUT may not store under a name (docs/relay.md, "Attachments"). */
export type ClaimRefusal = 'not_issued' | 'expired' | 'taken';

/**
 * The upload names `request-upload` issued, per account and session. A name can be claimed by one
 * PUT at a time and stored once; a failed PUT releases it for a retry. Stored sizes are what the
 * account's attachment quota counts.
 */
export class UploadStore {
  constructor(private readonly db: RelayDatabase) {
    // A relay that stopped during an upload left its name claimed: nothing is uploading now.
    db.prepare(`UPDATE attachment_uploads SET state = 'issued' WHERE state = 'uploading'`).run();
  }

  /** Records a freshly issued name; expired names the account never used are forgotten here. */
  issue(accountId: string, sessionId: string, file: string, expiresAt: number, now = Date.now()): void {
    this.db
      .prepare(`DELETE FROM attachment_uploads WHERE account_id = ? AND state = 'issued' AND expires_at <= ?`)
      .run(accountId, now);
    this.db
      .prepare(
        `INSERT INTO attachment_uploads (session_id, file, account_id, state, expires_at, created_at)
         VALUES (?, ?, ?, 'issued', ?, ?)`,
      )
      .run(sessionId, file, accountId, expiresAt, now);
  }

  /** Marks an issued name as being uploaded, or says why it cannot be. */
  claim(accountId: string, sessionId: string, file: string, now = Date.now()): ClaimRefusal | undefined {
    const row = this.db
      .prepare(
        'SELECT state, expires_at FROM attachment_uploads WHERE session_id = ? AND file = ? AND account_id = ?',
      )
      .get(sessionId, file, accountId) as { state: string; expires_at: number } | undefined;
    if (!row) return 'not_issued';
    if (row.state !== 'issued') return 'taken';
    if (row.expires_at <= now) return 'expired';
    const changed = this.db
      .prepare(
        `UPDATE attachment_uploads SET state = 'uploading' WHERE session_id = ? AND file = ? AND state = 'issued'`,
      )
      .run(sessionId, file).changes;
    return changed === 1 ? undefined : 'taken';
  }

  /** Gives a claimed name back after a failed upload, so the client can try again. */
  release(sessionId: string, file: string): void {
    this.db
      .prepare(
        `UPDATE attachment_uploads SET state = 'issued' WHERE session_id = ? AND file = ? AND state = 'uploading'`,
      )
      .run(sessionId, file);
  }

  /** Marks a claimed name as stored with its size. */
  stored(sessionId: string, file: string, size: number): void {
    this.db
      .prepare(`UPDATE attachment_uploads SET state = 'stored', size = ? WHERE session_id = ? AND file = ?`)
      .run(size, sessionId, file);
  }

  /** Bytes of attachments the account has stored. */
  usedBytes(accountId: string): number {
    const row = this.db
      .prepare(
        `SELECT COALESCE(SUM(size), 0) AS used FROM attachment_uploads WHERE account_id = ? AND state = 'stored'`,
      )
      .get(accountId) as { used: number };
    return row.used;
  }

  /** Forgets every name of the session (its blobs are deleted with it). */
  deleteSession(sessionId: string): void {
    this.db.prepare('DELETE FROM attachment_uploads WHERE session_id = ?').run(sessionId);
  }
}
