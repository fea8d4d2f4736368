import { decryptRecord, encryptRecordBase64 } from '../crypto/records.js';
import type { RecordKey } from '../crypto/records.js';
import { SdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { Credentials } from './credentials.js';
import type { HappyHttp } from './httpClient.js';
import { existingSessionKey, newSessionKey } from './sessionKeys.js';
import type { StateObject } from '../ports/sessionState.js';
import { expectShape } from '../wire/expectShape.js';
import { CreateSessionResponseSchema, SessionPageSchema } from '../wire/sessions.js';
import type { SessionRow } from '../wire/sessions.js';

/** A session as created or found on the server, with its key and decrypted side records. */
export interface SessionRecord {
  readonly id: string;
  readonly key: RecordKey;
  /** The session's last message `seq` when it was created or opened. */
  readonly seq: number;
  readonly metadata: { readonly value: StateObject; readonly version: number };
  readonly agentState: { readonly value: StateObject; readonly version: number };
  /** Whether the server counts the session active, and its last heartbeat's time (docs/wire.md §4.5). */
  readonly active: boolean;
  readonly activeAt: number;
}

/**
 * Creates a session with `POST /v1/sessions` under a fresh random tag (so the server never hands
 * back another session, docs/wire.md §4.1) with encrypted metadata and the wrapped data key.
 * agentState cannot be set here; the caller sets it with `update-state` from version 0.
 *
 * @throws {SdkError} `transport.*` when the server refuses or cannot be reached.
 */
export async function createSessionRecord(
  http: HappyHttp,
  credentials: Credentials,
  metadata: StateObject,
): Promise<SessionRecord> {
  return postSessionRecord(http, await prepareSessionRecord(credentials, metadata));
}

/** A session about to be created: its key, and the body that creates it (tag included). */
export interface PreparedSessionRecord {
  readonly key: RecordKey;
  readonly metadata: StateObject;
  readonly body: {
    readonly tag: string;
    readonly metadata: string;
    readonly agentState: null;
    readonly dataEncryptionKey: string | null;
  };
}

/** Makes the session's key, tag and encrypted metadata once, so that retries send the same body. */
export async function prepareSessionRecord(
  credentials: Credentials,
  metadata: StateObject,
): Promise<PreparedSessionRecord> {
  const { key, dataEncryptionKey } = newSessionKey(credentials);
  return {
    key,
    metadata,
    body: {
      tag: globalThis.crypto.randomUUID(),
      metadata: await encryptRecordBase64(metadata, key),
      agentState: null,
      dataEncryptionKey,
    },
  };
}

/**
 * Sends a prepared `POST /v1/sessions`. Sending it again is safe: the server answers a known tag
 * with the session it created for it (docs/wire.md §4.1).
 *
 * @throws {SdkError} `transport.*` when the server refuses or cannot be reached.
 */
export async function postSessionRecord(
  http: HappyHttp,
  prepared: PreparedSessionRecord,
): Promise<SessionRecord> {
  const answer = await http.request<unknown>('POST', '/v1/sessions', prepared.body);
  const { session } = expectShape(CreateSessionResponseSchema, answer, 'POST /v1/sessions');
  return {
    id: session.id,
    key: prepared.key,
    seq: session.seq,
    metadata: { value: prepared.metadata, version: session.metadataVersion },
    agentState: { value: {}, version: session.agentStateVersion },
    active: session.active,
    activeAt: session.activeAt,
  };
}

/**
 * Opens an existing session of the account by id in one request (see {@link findSessionRow}),
 * unwraps its key with the master secret and decrypts its metadata and agentState.
 *
 * @throws {SdkError} `transport.not_found` when the account has no such session;
 *   `credentials.cannot_open` or `crypto.*` when its key cannot be unwrapped.
 */
export async function openSessionRecord(
  http: HappyHttp,
  credentials: Credentials,
  sessionId: string,
  logger: Logger = silentLogger,
): Promise<SessionRecord> {
  const row = await findSessionRow(http, sessionId);
  const key = existingSessionKey(credentials, row.dataEncryptionKey);
  return {
    id: row.id,
    key,
    seq: row.seq,
    metadata: {
      value: await decryptState(row.metadata, key, 'metadata', logger),
      version: row.metadataVersion,
    },
    agentState: {
      value: await decryptState(row.agentState, key, 'agentState', logger),
      version: row.agentStateVersion,
    },
    active: row.active,
    activeAt: row.activeAt,
  };
}

/**
 * The cursor of `GET /v2/sessions` whose page starts at `sessionId` itself. The list is ordered by
 * id descending and a cursor `cursor_v1_<c>` keeps the ids below `c` (docs/wire.md §4.1); the
 * smallest id above `sessionId` that any id could sit under is `sessionId` followed by `0`, the
 * lowest character of the id alphabet (lower-case letters and digits, one length), so the first
 * row of that page is the session when the account has it.
 */
function cursorAt(sessionId: string): string {
  return `cursor_v1_${sessionId}0`;
}

/**
 * The account's row of `sessionId`, in one request whatever the account's size. Neither the Happy
 * server nor the relay has a route for one session (docs/wire.md §4.1), so this asks
 * `GET /v2/sessions` for the one row at {@link cursorAt}: an index lookup on the server, never a
 * walk through the list. A row with another id means the account has no such session.
 */
async function findSessionRow(http: HappyHttp, sessionId: string): Promise<SessionRow> {
  const query = `?limit=1&cursor=${encodeURIComponent(cursorAt(sessionId))}`;
  const page = expectShape(
    SessionPageSchema,
    await http.request<unknown>('GET', `/v2/sessions${query}`),
    'GET /v2/sessions',
  );
  const row = page.sessions[0];
  if (row && row.id === sessionId) return row;
  throw new SdkError('transport.not_found', `The account has no session ${sessionId}.`, {
    hint: 'check the session id and that the credentials belong to the account that owns it',
    details: { sessionId },
  });
}

async function decryptState(
  ciphertext: string | null,
  key: RecordKey,
  field: string,
  logger: Logger,
): Promise<StateObject> {
  if (ciphertext === null) return {};
  const decrypted = await decryptRecord(ciphertext, key);
  if (!decrypted.ok) {
    logger.warn(`stored ${field} does not decrypt; treating it as empty`, { code: decrypted.error.code });
    return {};
  }
  const value = decrypted.value;
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as StateObject) : {};
}
