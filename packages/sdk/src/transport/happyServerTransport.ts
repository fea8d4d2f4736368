import { appendSessionMessages, newMessageRecord, readSessionMessages } from './sessionMessagesHttp.js';
import { Subject } from 'rxjs';
import type { Observable, Subscription } from 'rxjs';
import { SdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { TailCheckPacer } from '../ports/tailCheckPacer.js';
import { within } from '../ports/waits.js';
import type { AccountToken } from './accountToken.js';
import { Heartbeat } from './heartbeat.js';
import { HappyHttp } from './httpClient.js';
import { SessionSocket } from './sessionSocket.js';
import type {
  AppendAck,
  AppendOptions,
  OutgoingRecord,
  ReadPage,
  StoredRecord,
  Transport,
} from '../ports/transport.js';
import { UpdateSessionBodySchema } from '../wire/updates.js';
import type * as z from '../zod.js';

/** Options of a {@link HappyServerTransport}. */
export interface HappyServerTransportOptions {
  /** Server base URL, e.g. the relay's `url` or `https://api.cluster-fluster.com`. */
  readonly serverUrl: string;
  /** The bearer token; an {@link AccountToken} from `connect()` is renewed from the secret on a 401. */
  readonly token: string | AccountToken;
  readonly sessionId: string;
  /**
   * Names the account, so that this process's sessions of one account on one server share one
   * socket (docs/transport.md, "One socket per account"); `connect()` derives it from the
   * credentials. Default: the token when it is a string, else a socket of this transport's own.
   */
  readonly account?: string;
  readonly logger?: Logger;
  /** Per-request HTTP time-out; default 30 s. */
  readonly httpTimeoutMs?: number;
  /** `session-alive` period while a turn is open; default 2 s (docs/wire.md §4.5). */
  readonly heartbeatIntervalMs?: number;
  /** `session-alive` period while no turn is open; default 30 s (docs/transport.md, "One socket per account"). */
  readonly idleHeartbeatIntervalMs?: number;
  readonly reconnectionDelayMs?: number;
  readonly reconnectionDelayMaxMs?: number;
  readonly fetch?: typeof fetch;
}

/** An `update-session` body for this session (docs/wire.md §2.3). */
export type SessionUpdate = z.output<typeof UpdateSessionBodySchema>;

/** How {@link HappyServerTransport.close} ends the session. */
export interface TransportCloseOptions {
  /** Send `session-end` (default true). */
  readonly end?: boolean;
  /** Call `POST /v1/sessions/:id/archive` (default true). */
  readonly archive?: boolean;
  /**
   * Waits this long at most for the server to take `session-end` and the archive request
   * (default: 2 s for `session-end`, the HTTP time-out for the archive); they are sent either way.
   */
  readonly deadlineMs?: number;
}

/**
 * {@link Transport} over a Happy server: writes and reads through the v3 HTTP API, live hints from
 * the `new-message` updates of the account's one socket (shared by this process's sessions of the
 * account, docs/transport.md, "One socket per account"), a `resync$` notice after every reconnect (the
 * server keeps no missed events, docs/wire.md §0), and the session's heartbeat.
 *
 * @see docs/wire.md §2, §4.5, §5.2
 */
export class HappyServerTransport implements Transport {
  readonly sessionId: string;
  readonly http: HappyHttp;
  readonly socket: SessionSocket;
  private readonly heartbeat: Heartbeat;
  private readonly logger: Logger;
  private readonly recordsSubject = new Subject<StoredRecord>();
  private readonly resyncSubject = new Subject<void>();
  private readonly sessionUpdatesSubject = new Subject<SessionUpdate>();
  private readonly connects: Subscription;
  private readonly updates: Subscription;
  private closing: Promise<void> | undefined;

  readonly records$: Observable<StoredRecord> = this.recordsSubject.asObservable();
  /** Appends call `onSent` once the request has left (`node:http`), or is handed to `fetch`. */
  readonly reportsSent = true;
  readonly resync$: Observable<void> = this.resyncSubject.asObservable();
  /** `update-session` bodies of this session, own writes included (docs/wire.md §4.4). */
  readonly sessionUpdates$: Observable<SessionUpdate> = this.sessionUpdatesSubject.asObservable();
  /** Emits after every reconnect (not the first connect). */
  readonly reconnected$: Observable<{ readonly reconnect: boolean }>;

  constructor(options: HappyServerTransportOptions) {
    this.sessionId = options.sessionId;
    this.logger = options.logger ?? silentLogger;
    this.http = new HappyHttp({
      serverUrl: options.serverUrl,
      token: options.token,
      logger: this.logger,
      ...(options.httpTimeoutMs !== undefined ? { timeoutMs: options.httpTimeoutMs } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    const token = options.token;
    this.socket = new SessionSocket({
      serverUrl: this.http.serverUrl,
      token: typeof token === 'string' ? token : () => token.value,
      sessionId: options.sessionId,
      ...(options.account !== undefined ? { account: options.account } : {}),
      logger: this.logger,
      ...(options.reconnectionDelayMs !== undefined
        ? { reconnectionDelayMs: options.reconnectionDelayMs }
        : {}),
      ...(options.reconnectionDelayMaxMs !== undefined
        ? { reconnectionDelayMaxMs: options.reconnectionDelayMaxMs }
        : {}),
    });
    this.reconnected$ = this.socket.connects$;
    this.heartbeat = new Heartbeat(this.socket, this.sessionId, {
      ...(options.heartbeatIntervalMs !== undefined ? { intervalMs: options.heartbeatIntervalMs } : {}),
      ...(options.idleHeartbeatIntervalMs !== undefined
        ? { idleIntervalMs: options.idleHeartbeatIntervalMs }
        : {}),
    });
    this.connects = this.socket.connects$.subscribe(() => {
      // start() beats at once; on a reconnect the loop is running already, so beat now.
      if (this.heartbeat.running) this.heartbeat.beat();
      else this.heartbeat.start();
      this.resyncSubject.next();
    });
    this.updates = this.socket.updates$.subscribe((update) => this.onUpdate(update));
  }

  /** Paces this session's idle tail checks with those of the other sessions on its socket. */
  get tailCheckPacer(): TailCheckPacer {
    return this.socket.tailChecks;
  }

  /** Resolves once the socket is connected; see {@link SessionSocket.ready}. */
  ready(timeoutMs?: number): Promise<void> {
    return this.socket.ready(timeoutMs);
  }

  /** Whether `session-alive` says the agent is working. */
  get thinking(): boolean {
    return this.heartbeat.thinking;
  }

  /** Sets the thinking flag of `session-alive` (sent at once when it changes). */
  setThinking(thinking: boolean): void {
    this.heartbeat.setThinking(thinking);
  }

  async append(records: readonly OutgoingRecord[], options?: AppendOptions): Promise<readonly AppendAck[]> {
    this.assertOpen();
    return appendSessionMessages(this.http, this.sessionId, records, options);
  }

  async read(afterSeq: number, options: { readonly limit?: number } = {}): Promise<ReadPage> {
    this.assertOpen();
    return readSessionMessages(this.http, this.sessionId, afterSeq, options);
  }

  /** True once {@link HappyServerTransport.close} was called. */
  get closed(): boolean {
    return this.closing !== undefined;
  }

  /**
   * Ends the session on the server and disconnects: `session-end`, then `POST …/archive` (the CLI
   * does both, docs/wire.md §4.5). Failures there are logged, not thrown: the session goes inactive
   * after 10 minutes without heartbeats anyway. Idempotent.
   */
  close(options: TransportCloseOptions = {}): Promise<void> {
    this.closing ??= this.shutdown(options);
    return this.closing;
  }

  private async shutdown(options: TransportCloseOptions): Promise<void> {
    this.heartbeat.stop();
    const deadline = options.deadlineMs === undefined ? undefined : Date.now() + options.deadlineMs;
    const left = (fallback: number): number =>
      deadline === undefined ? fallback : Math.min(fallback, Math.max(0, deadline - Date.now()));
    if (options.end !== false && this.socket.connected) {
      this.socket.emit('session-end', { sid: this.sessionId, time: Date.now() });
      // The server acks `ping` after handling what came before it on this socket.
      const wait = left(2000);
      if (wait > 0) await this.socket.emitWithAck('ping', undefined, wait).catch(() => undefined);
    }
    if (options.archive !== false) {
      const archived = this.http
        .request('POST', `/v1/sessions/${encodeURIComponent(this.sessionId)}/archive`, {})
        .catch((error: unknown) =>
          this.logger.warn('archiving the session failed', { error: String(error) }),
        );
      if ((await within(archived, deadline === undefined ? undefined : left(Infinity))) !== 'settled') {
        this.logger.warn('closing before the server confirmed the archive', { sessionId: this.sessionId });
      }
    }
    this.connects.unsubscribe();
    this.updates.unsubscribe();
    this.socket.close();
    this.recordsSubject.complete();
    this.resyncSubject.complete();
    this.sessionUpdatesSubject.complete();
  }

  private assertOpen(): void {
    if (this.closing) {
      throw new SdkError('transport.closed', 'The transport is closed.', {
        hint: 'open the session again with connect()',
      });
    }
  }

  private onUpdate(update: unknown): void {
    const body = (update as { body?: { t?: unknown } } | null)?.body;
    if (body?.t === 'new-message') {
      const record = newMessageRecord(update, this.sessionId);
      if (record) this.recordsSubject.next(record);
    } else if (body?.t === 'update-session') {
      const parsed = UpdateSessionBodySchema.safeParse(body);
      if (parsed.success && parsed.data.id === this.sessionId) this.sessionUpdatesSubject.next(parsed.data);
    }
  }
}
