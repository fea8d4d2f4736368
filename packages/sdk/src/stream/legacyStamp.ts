import type { StoredRecord } from '../ports/transport.js';

/**
 * The `id` and `time` a legacy record gets when it is read as a v2 message: its `localId` (the
 * app's dedupe key), else the server's row id, else its `seq`; the server's `createdAt`, else now.
 */
export function legacyStamp(record: StoredRecord): { readonly id: string; readonly time: number } {
  return { id: record.localId ?? record.id ?? `seq-${record.seq}`, time: record.createdAt ?? Date.now() };
}
