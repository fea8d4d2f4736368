import { subscribe } from 'node:diagnostics_channel';
import { io } from 'socket.io-client';
import type { Socket } from 'socket.io-client';
import { decryptRecord } from '../../packages/sdk/src/crypto/records.js';
import type { RecordKey } from '../../packages/sdk/src/crypto/records.js';
import type { Credentials } from '../../packages/sdk/src/transport/credentials.js';
import { HappyHttp } from '../../packages/sdk/src/transport/httpClient.js';
import { sessionMetadata } from '../../packages/sdk/src/transport/sessionMetadata.js';
import { createSessionRecord } from '../../packages/sdk/src/transport/sessionRecord.js';
import type { RawRecord } from './messages.js';

/**
 * The raw baseline's side of a session: a session created over HTTP, records posted with bare
 * `fetch` to `POST /v3/sessions/:id/messages`, and a session-scoped socket that is connected but
 * ignores what it receives, so the server fans each record out to as many sockets as it does for
 * an SDK session.
 */
export class RawSession {
  private constructor(
    readonly id: string,
    readonly key: RecordKey,
    private readonly url: string,
    private readonly token: string,
    private readonly socket: Socket,
  ) {}

  static async create(url: string, token: string, credentials: Credentials): Promise<RawSession> {
    const http = new HappyHttp({ serverUrl: url, token });
    const record = await createSessionRecord(http, credentials, sessionMetadata({}, { title: 'bench raw' }));
    const socket = await connectSocket(url, {
      token,
      clientType: 'session-scoped',
      sessionId: record.id,
    });
    return new RawSession(record.id, record.key, url, token, socket);
  }

  /** One `POST /v3/sessions/:id/messages` of up to 100 records; resolves with the response body. */
  async post(records: readonly RawRecord[]): Promise<unknown> {
    const response = await fetch(`${this.url}/v3/sessions/${encodeURIComponent(this.id)}/messages`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${this.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ messages: records }),
    });
    const body: unknown = await response.json();
    if (!response.ok) throw new Error(`POST messages answered ${response.status}: ${JSON.stringify(body)}`);
    return body;
  }

  /**
   * {@link RawSession.post}, and a promise that resolves once the request's body is written to the
   * socket (undici's `undici:request:bodySent` diagnostics channel, which Node's `fetch` publishes):
   * work started after it overlaps the request instead of holding it back, since `fetch` writes
   * only after a turn of the event loop.
   */
  postTracked(records: readonly RawRecord[]): {
    readonly sent: Promise<void>;
    readonly answered: Promise<unknown>;
  } {
    const path = `/v3/sessions/${encodeURIComponent(this.id)}/messages`;
    const sent = new Promise<void>((resolve) => bodySentWaiters.push({ path, resolve }));
    return { sent, answered: this.post(records) };
  }

  /** Posts all records in order, in batches of `batch`, one request in flight at a time. */
  async postAll(records: readonly RawRecord[], batch = 100): Promise<void> {
    for (let i = 0; i < records.length; i += batch) await this.post(records.slice(i, i + batch));
  }

  /** Archives the session and disconnects. */
  async close(): Promise<void> {
    this.socket.disconnect();
    await fetch(`${this.url}/v1/sessions/${encodeURIComponent(this.id)}/archive`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${this.token}`, 'Content-Type': 'application/json' },
      body: '{}',
    }).catch(() => undefined);
  }
}

const bodySentWaiters: Array<{ readonly path: string; readonly resolve: () => void }> = [];
subscribe('undici:request:bodySent', (message) => {
  const path = (message as { request?: { path?: string } }).request?.path;
  const i = bodySentWaiters.findIndex((w) => w.path === path);
  if (i >= 0) bodySentWaiters.splice(i, 1)[0]!.resolve();
});

/**
 * A second client, as the Happy app: a user-scoped socket that sees every `new-message` update of
 * the account, decrypts it with the session's key and resolves whoever waits for that message id.
 */
export class AppWatcher {
  private readonly keys = new Map<string, RecordKey>();
  private readonly waiting = new Map<string, (at: number) => void>();

  private constructor(readonly socket: Socket) {
    socket.on('update', (update: unknown) => void this.onUpdate(update));
  }

  static async open(url: string, token: string): Promise<AppWatcher> {
    return new AppWatcher(await connectSocket(url, { token, clientType: 'user-scoped' }));
  }

  /** Decrypt `sessionId`'s messages with `key`. */
  watch(sessionId: string, key: RecordKey): void {
    this.keys.set(sessionId, key);
  }

  /** Resolves with `performance.now()` at the moment the message `id` was seen and decrypted. */
  seen(id: string): Promise<number> {
    return new Promise((resolve) => this.waiting.set(id, resolve));
  }

  close(): void {
    this.socket.disconnect();
  }

  private async onUpdate(update: unknown): Promise<void> {
    const body = (update as { body?: { t?: string; sid?: string; message?: { content?: { c?: string } } } })
      ?.body;
    if (body?.t !== 'new-message' || !body.sid) return;
    const key = this.keys.get(body.sid);
    const content = body.message?.content?.c;
    if (!key || typeof content !== 'string') return;
    const decrypted = await decryptRecord(content, key);
    if (!decrypted.ok) return;
    const id = (decrypted.value as { id?: unknown }).id;
    if (typeof id !== 'string') return;
    const resolve = this.waiting.get(id);
    if (!resolve) return;
    this.waiting.delete(id);
    resolve(performance.now());
  }
}

/** A socket.io connection to `/v1/updates`; resolves once connected. */
export async function connectSocket(url: string, auth: Record<string, string>): Promise<Socket> {
  const socket = io(url, { path: '/v1/updates', transports: ['websocket'], auth, reconnection: false });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', reject);
  });
  return socket;
}

/** The app's side of session RPC over its user-scoped socket (docs/wire.md §7.1). */
export class AppRpc {
  constructor(private readonly socket: Socket) {}

  /**
   * `rpc-call` of `<sessionId>:<method>` with params already encrypted; resolves with the
   * decrypted result, or throws the relay's `{ok: false}` error.
   */
  async call(sessionId: string, method: string, encryptedParams: string, key: RecordKey): Promise<unknown> {
    const answer = (await this.socket.timeout(20_000).emitWithAck('rpc-call', {
      method: `${sessionId}:${method}`,
      params: encryptedParams,
    })) as { ok: boolean; result?: string; error?: string };
    if (!answer.ok || typeof answer.result !== 'string') throw new Error(`rpc-call failed: ${answer.error}`);
    const result = await decryptRecord(answer.result, key);
    if (!result.ok) throw new Error(result.error.message);
    return result.value;
  }
}

/**
 * The raw baseline's attachment upload (docs/wire.md §8.1): `request-upload` with the size, then
 * a bare `fetch` of the encrypted bytes (`PUT` to the server's own URL with the token, or the
 * presigned `POST` form). Resolves with the ref.
 */
export async function rawUpload(
  url: string,
  token: string,
  sessionId: string,
  encrypted: Uint8Array,
): Promise<string> {
  const response = await fetch(
    `${url}/v1/sessions/${encodeURIComponent(sessionId)}/attachments/request-upload`,
    {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ filename: 'photo.jpg', size: encrypted.length }),
    },
  );
  if (!response.ok) throw new Error(`request-upload answered ${response.status}`);
  const ticket = (await response.json()) as {
    ref: string;
    uploadUrl: string;
    method?: 'PUT' | 'POST';
    formFields?: Record<string, string>;
  };
  const body = new Blob([encrypted as Uint8Array<ArrayBuffer>]);
  let sent: Response;
  if (ticket.method === 'POST') {
    const form = new FormData();
    for (const [name, value] of Object.entries(ticket.formFields ?? {})) form.append(name, value);
    form.append('file', body, 'blob');
    sent = await fetch(ticket.uploadUrl, { method: 'POST', body: form });
  } else {
    const own = new URL(ticket.uploadUrl).origin === new URL(url).origin;
    sent = await fetch(ticket.uploadUrl, {
      method: 'PUT',
      headers: {
        'Content-Type': 'application/octet-stream',
        ...(own ? { Authorization: `Bearer ${token}` } : {}),
      },
      body,
    });
  }
  await sent.arrayBuffer();
  if (!sent.ok) throw new Error(`the upload answered ${sent.status}`);
  return ticket.ref;
}
