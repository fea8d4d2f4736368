import { decryptRecord, unwrapDataKey } from 'happy-session/crypto';
import type { AccountKeys, CryptoFailure, RecordKey } from 'happy-session/crypto';
import type { Result } from 'happy-session';

/**
 * The record key of a listed session, as the Happy app finds it (docs/wire.md §3.1, §3.3): a
 * session with a `dataEncryptionKey` uses that key unwrapped with the account's content secret
 * key; a legacy session (`null`) uses the master secret.
 */
export function sessionKeyOf(
  row: { readonly dataEncryptionKey: string | null },
  account: AccountKeys,
): Result<RecordKey, CryptoFailure> {
  if (row.dataEncryptionKey === null) {
    return { ok: true, value: { variant: 'legacy', key: account.masterSecret } };
  }
  const unwrapped = unwrapDataKey(row.dataEncryptionKey, account.content.secretKey);
  if (!unwrapped.ok) return unwrapped;
  return { ok: true, value: { variant: 'dataKey', key: unwrapped.value } };
}

/**
 * A session's display title from its encrypted metadata (docs/wire.md §4.2, §9.1): `summary.text`,
 * else the last segment of `path`, else `undefined`.
 */
export async function sessionTitle(metadata: string, key: RecordKey): Promise<string | undefined> {
  const decrypted = await decryptRecord(metadata, key);
  if (!decrypted.ok || typeof decrypted.value !== 'object' || decrypted.value === null) return undefined;
  const value = decrypted.value as { summary?: { text?: unknown }; path?: unknown };
  if (typeof value.summary?.text === 'string' && value.summary.text) return value.summary.text;
  if (typeof value.path === 'string') return value.path.split('/').filter(Boolean).at(-1);
  return undefined;
}
