import { createHash } from 'node:crypto';
import type { Credentials } from './credentials.js';

/**
 * A name for the account the credentials reach, the same for every copy of them and for every
 * token minted from them, and that gives nothing of the key away: a hash of the master secret, or
 * of the content public key (which the account's secret determines). The sessions of one account
 * share one socket by it (docs/transport.md, "One socket per account").
 */
export function accountFingerprint(credentials: Credentials): string {
  const key = credentials.kind === 'dataKey' ? credentials.contentPublicKey : credentials.masterSecret;
  return createHash('sha256').update('happy-session account socket\n').update(key).digest('base64url');
}
