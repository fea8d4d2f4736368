import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { RelayDatabase } from './db.js';

/** What a relay token says: the account, plus the extras of the pairing flow (docs/wire.md §1.2, §1.3). */
export interface TokenClaims {
  user: string;
  extras?: Record<string, unknown>;
}

const PREFIX = 'hsr1';
const SECRET_KEY = 'token_secret';

/**
 * Issues and checks bearer tokens. A token is `hsr1.<b64url(JSON claims)>.<b64url(HMAC-SHA256)>`,
 * keyed with a secret kept in the relay database, so tokens stay valid across a restart with the
 * same data dir and are worthless against any other relay. Like the real server's tokens they do
 * not expire; clients treat them as opaque strings.
 */
export class TokenSigner {
  private constructor(private readonly secret: Buffer) {}

  /** Loads the signing secret from the database, creating it on first use. */
  static fromDatabase(db: RelayDatabase): TokenSigner {
    const row = db.prepare('SELECT value FROM relay_meta WHERE key = ?').get(SECRET_KEY) as
      { value: string } | undefined;
    if (row) return new TokenSigner(Buffer.from(row.value, 'hex'));
    const secret = randomBytes(32);
    db.prepare('INSERT INTO relay_meta (key, value) VALUES (?, ?)').run(SECRET_KEY, secret.toString('hex'));
    return new TokenSigner(secret);
  }

  /** Signs a token for `claims`. */
  issue(claims: TokenClaims): string {
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `${PREFIX}.${payload}.${this.mac(payload).toString('base64url')}`;
  }

  /** The claims of a token this relay signed, or `null` for anything forged, tampered or malformed. */
  verify(token: string): TokenClaims | null {
    const parts = token.split('.');
    if (parts.length !== 3 || parts[0] !== PREFIX) return null;
    const [, payload = '', signature = ''] = parts;
    const expected = this.mac(payload);
    const given = Buffer.from(signature, 'base64url');
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
    // Re-encoding must reproduce the signed text exactly, so no two spellings verify as one token.
    if (given.toString('base64url') !== signature) return null;
    try {
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
      if (typeof claims !== 'object' || claims === null) return null;
      const user = (claims as { user?: unknown }).user;
      if (typeof user !== 'string' || user.length === 0) return null;
      const extras = (claims as { extras?: unknown }).extras;
      return typeof extras === 'object' && extras !== null
        ? { user, extras: extras as Record<string, unknown> }
        : { user };
    } catch {
      return null;
    }
  }

  private mac(payload: string): Buffer {
    return createHmac('sha256', this.secret).update(`${PREFIX}.${payload}`).digest();
  }
}
