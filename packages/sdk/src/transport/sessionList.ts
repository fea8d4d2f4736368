import { decryptRecord } from '../crypto/records.js';
import type { Credentials } from './credentials.js';
import type { HappyHttp } from './httpClient.js';
import { existingSessionKey } from './sessionKeys.js';
import { expectShape } from '../wire/expectShape.js';
import { SessionListSchema } from '../wire/sessions.js';

/** One session as `happy-session sessions` shows it. */
export interface SessionSummary {
  readonly id: string;
  /** `metadata.summary.text`, when the metadata decrypts and has one. */
  readonly title: string | undefined;
  /** `metadata.path`, the working directory the app shows under the title. */
  readonly path: string | undefined;
  readonly active: boolean;
  readonly createdAt: number;
  readonly updatedAt: number;
  /** Last message `seq`: how many records the stream holds. */
  readonly seq: number;
  /** Why the title is missing when the metadata could not be read. */
  readonly unreadable?: string;
}

/**
 * The sessions the Happy app lists (`GET /v1/sessions`: newest `updatedAt` first, at most 150,
 * docs/wire.md §4.1), each with its metadata decrypted for the title and path. A session whose key
 * or metadata does not open is still listed, with `unreadable` saying why.
 */
export async function listSessions(http: HappyHttp, credentials: Credentials): Promise<SessionSummary[]> {
  const { sessions } = expectShape(
    SessionListSchema,
    await http.request<unknown>('GET', '/v1/sessions'),
    'GET /v1/sessions',
  );
  return Promise.all(
    sessions.map(async (row) => {
      const base = {
        id: row.id,
        active: row.active,
        createdAt: row.createdAt,
        updatedAt: row.updatedAt,
        seq: row.seq,
      };
      let metadata: unknown;
      try {
        const decrypted = await decryptRecord(
          row.metadata,
          existingSessionKey(credentials, row.dataEncryptionKey),
        );
        if (!decrypted.ok)
          return { ...base, title: undefined, path: undefined, unreadable: decrypted.error.code };
        metadata = decrypted.value;
      } catch (error) {
        const code = (error as { code?: unknown }).code;
        return {
          ...base,
          title: undefined,
          path: undefined,
          unreadable: typeof code === 'string' ? code : String(error),
        };
      }
      return { ...base, title: summaryText(metadata), path: stringField(metadata, 'path') };
    }),
  );
}

function summaryText(metadata: unknown): string | undefined {
  const summary = (metadata as { summary?: unknown } | null)?.summary;
  return stringField(summary, 'text');
}

function stringField(value: unknown, field: string): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = (value as Record<string, unknown>)[field];
  return typeof v === 'string' && v !== '' ? v : undefined;
}
