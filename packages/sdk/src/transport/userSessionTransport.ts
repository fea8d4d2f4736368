import { appendSessionMessages, newMessageRecord, readSessionMessages } from './sessionMessagesHttp.js';
import { Subject } from 'rxjs';
import type { Observable } from 'rxjs';
import type { Socket } from 'socket.io-client';
import type { HappyHttp } from './httpClient.js';
import type {
  AppendAck,
  AppendOptions,
  OutgoingRecord,
  ReadPage,
  StoredRecord,
  Transport,
} from '../ports/transport.js';

/**
 * One session's records seen from the user's side, as the app sees them: v3 HTTP to read and
 * append (docs/wire.md §5.2), live hints from the account's user-scoped socket (`update`
 * `new-message` for this session, §2.3) and a `resync$` after every reconnect. Unlike the agent's
 * `HappyServerTransport` it sends no heartbeat and ends nothing when it closes.
 */
export class UserSessionTransport implements Transport {
  private readonly recordsSubject = new Subject<StoredRecord>();
  private readonly resyncSubject = new Subject<void>();
  private readonly onUpdate = (update: unknown): void => this.take(update);
  private readonly onConnect = (): void => this.resyncSubject.next();

  readonly records$: Observable<StoredRecord> = this.recordsSubject.asObservable();
  /** Appends call `onSent` once the request has left (`node:http`), or is handed to `fetch`. */
  readonly reportsSent = true;
  readonly resync$: Observable<void> = this.resyncSubject.asObservable();

  constructor(
    private readonly http: HappyHttp,
    private readonly socket: Socket,
    readonly sessionId: string,
  ) {
    socket.on('update', this.onUpdate);
    // The socket is connected already, so every later `connect` is a reconnect.
    socket.on('connect', this.onConnect);
  }

  append(records: readonly OutgoingRecord[], options?: AppendOptions): Promise<readonly AppendAck[]> {
    return appendSessionMessages(this.http, this.sessionId, records, options);
  }

  read(afterSeq: number, options: { readonly limit?: number } = {}): Promise<ReadPage> {
    return readSessionMessages(this.http, this.sessionId, afterSeq, options);
  }

  /** Stops listening to the socket (the socket itself belongs to the caller). */
  close(): void {
    this.socket.off('update', this.onUpdate);
    this.socket.off('connect', this.onConnect);
    this.recordsSubject.complete();
    this.resyncSubject.complete();
  }

  private take(update: unknown): void {
    const record = newMessageRecord(update, this.sessionId);
    if (record) this.recordsSubject.next(record);
  }
}
