import { Subject } from 'rxjs';
import type { Observable } from 'rxjs';
import type { Socket } from 'socket.io-client';
import { SdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { socketIo } from './socketIo.js';
import { REFUSED_TOKEN_HINT } from './keyHints.js';

/** Options of a {@link SessionSocket}. */
export interface SessionSocketOptions {
  readonly serverUrl: string;
  /** The bearer token, or where to read it at each (re)connect (a renewed token is then used). */
  readonly token: string | (() => string);
  readonly sessionId: string;
  /** First reconnection delay; default 1 s (happy-agent's value, docs/wire.md §2.1). */
  readonly reconnectionDelayMs?: number;
  /** Longest reconnection delay; default 5 s. */
  readonly reconnectionDelayMaxMs?: number;
  readonly logger?: Logger;
}

/** Messages the server's handshake middleware refuses with (docs/wire.md §2.1). */
const AUTH_REFUSALS = new Set(['Missing authentication token', 'Invalid authentication token']);

/**
 * The session-scoped socket.io connection to `/v1/updates` (docs/wire.md §2.1): websocket only,
 * reconnection with backoff, and a notice on every (re)connect, because connection-state recovery
 * is off on the server and whatever was missed must be fetched over HTTP.
 */
export class SessionSocket {
  /** The socket.io client socket (an escape hatch for events this SDK does not wrap). */
  readonly socket: Socket;
  private readonly connectsSubject = new Subject<{ readonly reconnect: boolean }>();
  private readonly logger: Logger;
  private connectCount = 0;
  private closed = false;
  private refusal: SdkError | undefined;

  /** Emits on every successful connect; `reconnect` is true after the first. */
  readonly connects$: Observable<{ readonly reconnect: boolean }> = this.connectsSubject.asObservable();

  constructor(options: SessionSocketOptions) {
    this.logger = options.logger ?? silentLogger;
    this.socket = socketIo()(options.serverUrl, {
      path: '/v1/updates',
      transports: ['websocket'],
      // Read at every (re)connect, so a token renewed meanwhile is the one sent.
      auth: (send) =>
        send({
          token: typeof options.token === 'function' ? options.token() : options.token,
          clientType: 'session-scoped',
          sessionId: options.sessionId,
          happyClient: 'cli-coding-session/happy-session',
        }),
      reconnection: true,
      reconnectionDelay: options.reconnectionDelayMs ?? 1000,
      reconnectionDelayMax: options.reconnectionDelayMaxMs ?? 5000,
      reconnectionAttempts: Infinity,
    });
    this.socket.on('connect', () => {
      this.connectCount += 1;
      this.logger.debug('socket connected', { reconnect: this.connectCount > 1 });
      this.connectsSubject.next({ reconnect: this.connectCount > 1 });
    });
    this.socket.on('disconnect', (reason) => {
      this.logger.debug('socket disconnected', { reason });
      // socket.io does not reconnect by itself after a server-side disconnect; we still want to.
      if (reason === 'io server disconnect' && !this.closed) this.socket.connect();
    });
    this.socket.on('connect_error', (error: Error) => {
      this.logger.debug('socket connect error', { message: error.message });
      if (AUTH_REFUSALS.has(error.message)) {
        this.refusal = new SdkError(
          'transport.unauthorized',
          `The server refused the socket: ${error.message}.`,
          {
            hint: REFUSED_TOKEN_HINT,
          },
        );
      }
    });
  }

  /** True while connected. */
  get connected(): boolean {
    return this.socket.connected;
  }

  /**
   * Resolves once connected. Rejects with `transport.unauthorized` when the handshake is refused,
   * or `transport.network` when no connection is made within `timeoutMs` (default 20 s).
   */
  ready(timeoutMs = 20_000): Promise<void> {
    if (this.socket.connected) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        this.socket.off('connect', onConnect);
        this.socket.off('connect_error', onError);
      };
      const onConnect = (): void => {
        cleanup();
        resolve();
      };
      const onError = (): void => {
        // An active socket keeps retrying by itself; only a refused handshake is final.
        if (this.socket.active || !this.refusal) return;
        cleanup();
        reject(this.refusal);
      };
      const timer = setTimeout(() => {
        cleanup();
        reject(
          this.refusal ??
            new SdkError('transport.network', `The socket did not connect within ${timeoutMs} ms.`, {
              hint: 'check the network and HAPPY_SERVER_URL',
            }),
        );
      }, timeoutMs);
      this.socket.on('connect', onConnect);
      this.socket.on('connect_error', onError);
    });
  }

  /**
   * Emits and waits for the ack. The server sends no ack at all for some failures (a foreign
   * session on `update-metadata`, docs/wire.md §2.4), so there is always a time-out.
   *
   * @throws {SdkError} `transport.timeout` when no ack came in `timeoutMs`; `transport.closed`
   *   after {@link SessionSocket.close}.
   */
  async emitWithAck(event: string, payload: unknown, timeoutMs: number): Promise<unknown> {
    if (this.closed) throw closedError();
    try {
      const socket = this.socket.timeout(timeoutMs);
      // `ping` takes only the ack callback: an undefined payload would take its place.
      return (await (payload === undefined
        ? socket.emitWithAck(event)
        : socket.emitWithAck(event, payload))) as unknown;
    } catch (error) {
      throw new SdkError('transport.timeout', `No answer to ${event} within ${timeoutMs} ms.`, {
        hint: 'the socket may be reconnecting, or the session belongs to another account',
        cause: error,
      });
    }
  }

  /** Emits without an ack. `volatile` drops the packet while disconnected (heartbeats). */
  emit(event: string, payload: unknown, options: { volatile?: boolean } = {}): void {
    if (this.closed) return;
    if (options.volatile) this.socket.volatile.emit(event, payload);
    else this.socket.emit(event, payload);
  }

  /**
   * Drops the underlying connection as a network failure would; socket.io then reconnects with
   * backoff. For fault tests and for callers that know the link is stale.
   */
  dropConnection(): void {
    this.socket.io.engine?.close();
  }

  /** Disconnects for good. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.socket.disconnect();
    this.connectsSubject.complete();
  }
}

function closedError(): SdkError {
  return new SdkError('transport.closed', 'The session socket is closed.', {
    hint: 'open the session again with connect()',
  });
}
