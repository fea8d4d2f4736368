import { isSdkError } from 'happy-session';
import type { Socket } from 'socket.io-client';
import { deriveAccountKeys, unwrapDataKey, decryptRecord } from 'happy-session/crypto';
import { encryptRecordBase64 } from 'happy-session/internal';
import type { RecordKey } from 'happy-session/crypto';
import type { HappyHttp } from 'happy-session/internal';
import { until } from '../helpers/until.js';
import { appSocket } from './helpers.js';

/** A session row as `GET /v1/sessions` lists it. */
export interface ListedSession {
  id: string;
  seq: number;
  metadata: string;
  metadataVersion: number;
  agentState: string | null;
  agentStateVersion: number;
  dataEncryptionKey: string | null;
  active: boolean;
}

/**
 * Plays the Happy app against a server: raw HTTP, a user-scoped socket and the crypto module only
 * (no SDK transport code), so tests check the SDK from the other side of the wire.
 */
export class AppClient {
  private constructor(
    readonly http: HappyHttp,
    readonly socket: Socket,
    private readonly masterSecret: Uint8Array,
  ) {}

  static async open(
    url: string,
    http: HappyHttp,
    token: string,
    masterSecret: Uint8Array,
  ): Promise<AppClient> {
    return new AppClient(http, await appSocket(url, token), masterSecret);
  }

  async session(id: string): Promise<ListedSession> {
    const { sessions } = await this.http.request<{ sessions: ListedSession[] }>('GET', '/v1/sessions');
    const found = sessions.find((s) => s.id === id);
    if (!found) throw new Error(`session ${id} is not listed`);
    return found;
  }

  /** Waits (a bound on a hung test, not a speed check) until the server lists the session inactive. */
  async untilInactive(id: string): Promise<void> {
    await until(async () => !(await this.session(id)).active, {
      timeoutMs: 5_000,
      intervalMs: 50,
      what: `session ${id} listed inactive`,
    });
  }

  /** The session key as the app derives it: unwrap with the content key, or the master secret. */
  async keyOf(id: string): Promise<RecordKey> {
    const row = await this.session(id);
    if (row.dataEncryptionKey === null) return { variant: 'legacy', key: this.masterSecret };
    const unwrapped = unwrapDataKey(
      row.dataEncryptionKey,
      deriveAccountKeys(this.masterSecret).content.secretKey,
    );
    if (!unwrapped.ok) throw new Error(unwrapped.error.message);
    return { variant: 'dataKey', key: unwrapped.value };
  }

  async decrypt(value: string | null, key: RecordKey): Promise<unknown> {
    if (value === null) return null;
    const result = await decryptRecord(value, key);
    if (!result.ok) throw new Error(result.error.message);
    return result.value;
  }

  /**
   * Sends a user record as the app does (v3 POST, random localId). A connection reset (a kept-alive
   * socket the server closed as it was reused) is tried again with the same localId, which the
   * server stores once.
   */
  async send(id: string, record: unknown, key: RecordKey): Promise<string> {
    const localId = globalThis.crypto.randomUUID();
    const body = { messages: [{ content: await encryptRecordBase64(record, key), localId }] };
    for (let attempt = 1; ; attempt++) {
      try {
        await this.http.request('POST', `/v3/sessions/${id}/messages`, body);
        return localId;
      } catch (error) {
        if (attempt >= 3 || !isSdkError(error, 'transport.network')) throw error;
      }
    }
  }

  /** The session's metadata, decrypted. */
  async metadata(id: string, key: RecordKey): Promise<Record<string, unknown>> {
    return (await this.decrypt((await this.session(id)).metadata, key)) as Record<string, unknown>;
  }

  /**
   * Changes the session's metadata as the app does when the user picks a mode (docs/wire.md §4.4):
   * read, change, write with the version read; read again and retry when another writer won.
   */
  async updateMetadata(
    id: string,
    key: RecordKey,
    change: (metadata: Record<string, unknown>) => Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const row = await this.session(id);
      const next = change((await this.decrypt(row.metadata, key)) as Record<string, unknown>);
      const ack = (await this.socket.timeout(10_000).emitWithAck('update-metadata', {
        sid: id,
        metadata: await encryptRecordBase64(next, key),
        expectedVersion: row.metadataVersion,
      })) as { result?: string };
      if (ack.result === 'success') return next;
    }
    throw new Error(`the metadata of ${id} kept changing under the update`);
  }

  /** Calls a session RPC; resolves with the decrypted result, or throws the `{ok:false}` error. */
  async call(id: string, method: string, params: unknown, key: RecordKey): Promise<unknown> {
    const answer = (await this.socket.timeout(20_000).emitWithAck('rpc-call', {
      method: `${id}:${method}`,
      params: await encryptRecordBase64(params, key),
    })) as { ok: boolean; result?: string; error?: string };
    if (!answer.ok) throw new Error(answer.error);
    return this.decrypt(answer.result ?? null, key);
  }

  close(): void {
    this.socket.disconnect();
  }
}
