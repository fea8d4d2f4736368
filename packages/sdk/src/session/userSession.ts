import type { Observable } from 'rxjs';
import type { Socket } from 'socket.io-client';
import type { RecordKey } from '../crypto/records.js';
import type { Logger } from '../logger.js';
import { SessionReader } from '../stream/sessionReader.js';
import type { ReaderEvent } from '../stream/sessionReader.js';
import { SessionWriter } from '../stream/sessionWriter.js';
import type { StateObject } from '../ports/sessionState.js';
import type { Account } from './account.js';
import { UserSessionTransport } from '../transport/userSessionTransport.js';

/**
 * One session opened from the user's side, as the app opens it: its key unwrapped with the master
 * secret, a reader of the stream, a writer for user-role records (prompts, permission responses)
 * and the account's user-scoped socket for RPC.
 */
export class UserSession {
  private constructor(
    readonly id: string,
    readonly key: RecordKey,
    readonly metadata: StateObject,
    readonly transport: UserSessionTransport,
    readonly reader: SessionReader,
    readonly writer: SessionWriter,
    readonly socket: Socket,
  ) {}

  /**
   * Opens `sessionId` of `account`.
   *
   * @throws {SdkError} `transport.not_found`, `credentials.cannot_open`, `crypto.*` (see
   *   {@link Account.openSession}); `transport.*` when the socket does not connect.
   */
  static async open(account: Account, sessionId: string, logger?: Logger): Promise<UserSession> {
    const record = await account.openSession(sessionId);
    const socket = await account.socket();
    const transport = new UserSessionTransport(account.http, socket, record.id);
    return new UserSession(
      record.id,
      record.key,
      record.metadata.value,
      transport,
      new SessionReader({ transport, key: record.key }),
      new SessionWriter({ transport, key: record.key, ...(logger ? { logger } : {}) }),
      socket,
    );
  }

  /** `metadata.summary.text`, the title the app shows. */
  get title(): string | undefined {
    const summary = this.metadata.summary as { text?: unknown } | undefined;
    return typeof summary?.text === 'string' ? summary.text : undefined;
  }

  /**
   * The stream from its first record, then live: each record once, in `seq` order, decrypted and
   * validated (a record that fails is an error event, and reading goes on). Reads that fail on a
   * network error or a restarting server are retried, so a viewer survives a server restart.
   */
  events$(): Observable<ReaderEvent> {
    return this.reader.events$();
  }

  /** Sends a text prompt, as the app's composer does (a v2 user `text` record). */
  async sendText(text: string): Promise<void> {
    await this.writer.append({ role: 'user', type: 'text', text });
  }

  /** Delivers what was written and stops listening (the account's socket stays open). */
  async close(): Promise<void> {
    try {
      await this.writer.close();
    } finally {
      this.transport.close();
    }
  }
}
