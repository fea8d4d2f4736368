import { Observable, filter, map, share } from 'rxjs';
import type { Socket } from 'socket.io-client';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { MessageContext } from '../protocol/messageContext.js';
import type { SessionMessage } from '../protocol/sessionMessage.js';
import { formatShownBy } from '../transport/serverFormat.js';
import { resolveAccountAccess } from '../transport/accountAccess.js';
import type { AccountAccessOptions } from '../transport/accountAccess.js';
import type { AccountToken } from '../transport/accountToken.js';
import type { Credentials } from '../transport/credentials.js';
import type { HappyHttp } from '../transport/httpClient.js';
import { openSessionRecord } from '../transport/sessionRecord.js';
import type { SessionRecord } from '../transport/sessionRecord.js';
import { listSessions } from '../transport/sessionList.js';
import type { SessionSummary } from '../transport/sessionList.js';
import { connectUserSocket } from '../transport/userSocket.js';
import { callSessionRpc } from '../transport/sessionRpc.js';
import { UserSessionTransport } from '../transport/userSessionTransport.js';
import { SessionReader } from '../stream/sessionReader.js';
import { formatInAgentState, formatOfSession } from './sessionFormat.js';
import { UserSession } from './userSession.js';
import type { AgentActivity } from './userSession.js';

/** Where {@link Account.open} finds the server and the credentials (as `connect()` does). */
export type AccountOptions = Pick<
  AccountAccessOptions,
  'server' | 'credentials' | 'homeDir' | 'env' | 'logger'
>;

/**
 * The account as the Happy app holds it: a token (minted from the master secret when the key file
 * holds none), HTTP, and a user-scoped socket opened on first use. What `sessions` and `watch`
 * stand on; the agent side is `connect()`.
 */
export class Account {
  private socketPromise: Promise<Socket> | undefined;

  private constructor(
    readonly serverUrl: string,
    readonly credentials: Credentials,
    private readonly accountToken: AccountToken,
    readonly http: HappyHttp,
  ) {}

  /** The bearer token in use (renewed from the master secret when the server refuses one). */
  get token(): string {
    return this.accountToken.value;
  }

  /**
   * Resolves server and credentials as `connect()` does and makes sure there is a token.
   *
   * @throws {SdkError} `credentials.*` without usable credentials; `transport.*` when the server
   *   cannot be reached or refuses the signature.
   */
  static async open(options: AccountOptions = {}): Promise<Account> {
    const access = await resolveAccountAccess(options);
    return new Account(access.serverUrl, access.credentials, access.token, access.http);
  }

  /** The account's sessions as the app lists them, titles decrypted where the credentials allow. */
  listSessions(): Promise<SessionSummary[]> {
    return listSessions(this.http, this.credentials);
  }

  /**
   * Finds a session and unwraps its key with the master secret (docs/wire.md §3.3).
   *
   * @throws {SdkError} `transport.not_found` for a session the account does not have;
   *   `credentials.cannot_open` with credentials that hold no master secret.
   */
  openSession(sessionId: string): Promise<SessionRecord> {
    return openSessionRecord(this.http, this.credentials, sessionId);
  }

  /**
   * Opens `sessionId` from the user's side, as the app does (see {@link UserSession}): its key
   * unwrapped with the master secret, its records over HTTP with live hints from the account's
   * user-scoped socket, RPC over that socket, and uploads to the same server. Closing it never
   * ends the agent's session.
   *
   * @throws {SdkError} `transport.not_found`, `credentials.cannot_open`, `crypto.*` (see
   *   {@link Account.openSession}); `transport.*` when the socket does not connect.
   */
  async session(
    sessionId: string,
    options: {
      readonly promptFormat?: 'legacy' | 'v2';
      /**
       * The records it writes besides prompts: `'auto'` (default) takes the session's own format,
       * read from its records, so nothing is written in a second format; a session with no record
       * that says gets what `connect()` picks, v1 on a Happy server and v2 on the embedded relay
       * (docs/user-side.md, "The session's format").
       */
      readonly format?: 'auto' | 'v1' | 'v2';
      readonly logger?: Logger;
    } = {},
  ): Promise<UserSession> {
    const { format: asked = 'auto', ...rest } = options;
    const [record, socket] = await Promise.all([this.openSession(sessionId), this.socket()]);
    const transport = new UserSessionTransport(this.http, socket, record.id);
    let format: 'v1' | 'v2';
    try {
      format =
        asked !== 'auto'
          ? asked
          : ((await formatOfSession(new SessionReader({ transport, key: record.key }))) ??
            formatInAgentState(record.agentState.value) ??
            (await formatShownBy(this.http, options.logger ?? silentLogger)));
    } catch (error) {
      transport.close();
      throw error;
    }
    const encode =
      format === 'v1'
        ? await import('../protocol/v1/toV1.js').then(({ createV1Encoder }) => {
            const encoder = createV1Encoder();
            return (message: SessionMessage, context: MessageContext) => encoder.encode(message, context);
          })
        : undefined;
    const session = new UserSession({
      id: record.id,
      key: record.key,
      format,
      metadata: record.metadata.value,
      agentState: async () => (await this.openSession(record.id)).agentState.value,
      seq: record.seq,
      transport,
      rpc: (method, params) => callSessionRpc(socket, record.id, record.key, method, params),
      activity$: activityOf(socket, record.id),
      onClose: () => transport.close(),
      ...(encode ? { encode } : {}),
      ...rest,
    });
    // The media pipeline loads here, not when the package is imported (as in connect()).
    const [{ MediaPipeline }, { HappyUploader }] = await Promise.all([
      import('../media/attach.js'),
      import('../transport/happyUploader.js'),
    ]);
    MediaPipeline.create({
      writer: session.writer,
      uploader: new HappyUploader({ http: this.http, token: this.token, sessionId: record.id }),
      key: record.key,
      posters: format === 'v1',
      ...(options.logger ? { logger: options.logger } : {}),
    });
    return session;
  }

  /** The account's user-scoped socket, connected on first use. */
  socket(): Promise<Socket> {
    this.socketPromise ??= connectUserSocket(this.serverUrl, this.token);
    return this.socketPromise;
  }

  /** Disconnects the socket, if one was opened. */
  async close(): Promise<void> {
    const pending = this.socketPromise;
    this.socketPromise = undefined;
    if (!pending) return;
    try {
      (await pending).disconnect();
    } catch {
      // It never connected: nothing to close.
    }
  }
}

/** The server's `activity` events of one session (docs/wire.md §2.3), shared by every subscriber. */
function activityOf(socket: Socket, sessionId: string): Observable<AgentActivity> {
  return new Observable<unknown>((subscriber) => {
    const onEphemeral = (event: unknown): void => subscriber.next(event);
    socket.on('ephemeral', onEphemeral);
    return () => socket.off('ephemeral', onEphemeral);
  }).pipe(
    map((event) => event as { type?: unknown; id?: unknown; active?: unknown; thinking?: unknown } | null),
    filter((e) => e?.type === 'activity' && e.id === sessionId),
    map((e) => ({ active: e?.active === true, thinking: e?.thinking === true })),
    share(),
  );
}
