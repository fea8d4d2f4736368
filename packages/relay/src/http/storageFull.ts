/**
 * Whether `error` says the disk the relay writes to is full: SQLite's `SQLITE_FULL` ("database or
 * disk is full", better-sqlite3's `code`), or a file write's `ENOSPC` / `EDQUOT` (an attachment, a
 * journal). Looks through `cause` chains, since a store may wrap what the system said.
 */
export function isStorageFull(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT') return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

/** What the relay's HTTP answer and socket acks name a full disk with (docs/relay.md, "A full disk"). */
export const STORAGE_FULL = {
  status: 507,
  code: 'storage_full',
  message:
    'The relay cannot write: its disk is full. Nothing of this request was stored; send it again once there is room.',
} as const;
