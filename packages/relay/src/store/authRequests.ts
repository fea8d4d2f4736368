import type { RelayDatabase } from '../db.js';
import { newId } from '../ids.js';

/** A pending or answered pairing request (docs/wire.md §1.3, §1.4). */
export interface AuthRequestRecord {
  id: string;
  supportsV2: boolean;
  response: string | null;
  responseAccountId: string | null;
}

/** Which pairing flow a request belongs to: terminal pairing (§1.3) or account linking (§1.4). */
export type AuthRequestKind = 'terminal' | 'account';

interface Row {
  id: string;
  supports_v2: number;
  response: string | null;
  response_account_id: string | null;
}

const TABLE: Record<AuthRequestKind, string> = {
  terminal: 'terminal_auth_requests',
  account: 'account_auth_requests',
};

/** Pairing requests keyed by the requester's X25519 public key (hex). */
export class AuthRequestStore {
  constructor(private readonly db: RelayDatabase) {}

  /** Returns the request for `publicKeyHex`, creating it when absent; an existing one is unchanged. */
  upsert(kind: AuthRequestKind, publicKeyHex: string, supportsV2: boolean): AuthRequestRecord {
    const existing = this.find(kind, publicKeyHex);
    if (existing) return existing;
    const now = Date.now();
    const id = newId();
    if (kind === 'terminal') {
      this.db
        .prepare(
          'INSERT INTO terminal_auth_requests (id, public_key, supports_v2, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
        )
        .run(id, publicKeyHex, supportsV2 ? 1 : 0, now, now);
    } else {
      this.db
        .prepare(
          'INSERT INTO account_auth_requests (id, public_key, created_at, updated_at) VALUES (?, ?, ?, ?)',
        )
        .run(id, publicKeyHex, now, now);
    }
    return { id, supportsV2: kind === 'terminal' && supportsV2, response: null, responseAccountId: null };
  }

  /** The request for `publicKeyHex`, if any. */
  find(kind: AuthRequestKind, publicKeyHex: string): AuthRequestRecord | undefined {
    const columns = kind === 'terminal' ? 'id, supports_v2' : 'id, 0 AS supports_v2';
    const row = this.db
      .prepare(`SELECT ${columns}, response, response_account_id FROM ${TABLE[kind]} WHERE public_key = ?`)
      .get(publicKeyHex) as Row | undefined;
    if (!row) return undefined;
    return {
      id: row.id,
      supportsV2: row.supports_v2 === 1,
      response: row.response,
      responseAccountId: row.response_account_id,
    };
  }

  /** Stores the approving account's answer; the first answer wins. */
  answer(kind: AuthRequestKind, id: string, response: string, accountId: string): void {
    this.db
      .prepare(
        `UPDATE ${TABLE[kind]} SET response = ?, response_account_id = ?, updated_at = ? WHERE id = ? AND response IS NULL`,
      )
      .run(response, accountId, Date.now(), id);
  }
}
