import type { Socket } from 'socket.io-client';
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
