import type { RelayDatabase } from '../db.js';
import { newId } from '../ids.js';

/**
 * Accounts, identified by their Ed25519 auth public key (docs/wire.md §1.2), plus the
 * per-account counter that numbers `update` events (§2.3).
 */
export class AccountStore {
  constructor(private readonly db: RelayDatabase) {}

  /** Finds the account of `publicKeyHex`, creating it on first sight; returns its id. */
  upsertByPublicKey(publicKeyHex: string): string {
    const now = Date.now();
    const existing = this.db.prepare('SELECT id FROM accounts WHERE public_key = ?').get(publicKeyHex) as
      { id: string } | undefined;
    if (existing) {
      this.db.prepare('UPDATE accounts SET updated_at = ? WHERE id = ?').run(now, existing.id);
      return existing.id;
    }
    const id = newId();
    this.db
      .prepare('INSERT INTO accounts (id, public_key, created_at, updated_at) VALUES (?, ?, ?, ?)')
      .run(id, publicKeyHex, now, now);
    return id;
  }

  /** True when the account exists. */
  exists(accountId: string): boolean {
    return this.db.prepare('SELECT 1 FROM accounts WHERE id = ?').get(accountId) !== undefined;
  }

  /** Allocates the next update seq of the account. */
  nextUpdateSeq(accountId: string): number {
    const row = this.db
      .prepare('UPDATE accounts SET seq = seq + 1 WHERE id = ? RETURNING seq')
      .get(accountId) as { seq: number } | undefined;
    return row?.seq ?? 0;
  }
}
