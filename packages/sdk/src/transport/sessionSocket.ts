import { Subject } from 'rxjs';
import type { Observable } from 'rxjs';
import type { Socket } from 'socket.io-client';
import { SdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { AccountSocket, SocketMember } from './accountSocket.js';
import { accountSocket } from './accountSockets.js';
import type { TailCheckPacer } from '../ports/tailCheckPacer.js';
import type { HeartbeatClock } from './heartbeatClock.js';

/** Options of a {@link SessionSocket}. */
export interface SessionSocketOptions {
  readonly serverUrl: string;
  /** The bearer token, or where to read it at each (re)connect (a renewed token is then used). */
  readonly token: string | (() => string);
  readonly sessionId: string;
  /**
   * Names the account, so that the sessions of one account in this process share one socket
   * (`connect()` derives it from the credentials). Default: the token, when it is a string.
   */
  readonly account?: string;
  /** First reconnection delay; default 1 s (happy-agent's value, docs/wire.md §2.1). */
  readonly reconnectionDelayMs?: number;
  /** Longest reconnection delay; default 5 s. */
  readonly reconnectionDelayMaxMs?: number;
  readonly logger?: Logger;
}

/** Accounts of token functions without a name: each function its own account. */
const unnamed = new WeakMap<() => string, string>();
let unnamedCount = 0;

/**
 * A session's view of its account's one socket to `/v1/updates` (docs/transport.md, "One socket per
 * account"; docs/wire.md §2.1): websocket only, reconnection with backoff, and a notice on every
 * (re)connect, because connection-state recovery is off on the server and whatever was missed must
 * be fetched over HTTP. It sees only its own session's updates and RPC requests; closing it leaves
 * the socket to the account's other sessions, and the last one closes it.
 */
export class SessionSocket {
  /**
   * The socket.io client socket (an escape hatch for events this SDK does not wrap). It is shared
   * by every session of the account in this process: what it receives is the whole account's.
   */
  readonly socket: Socket;
  /** The session this view is of. */
  readonly sessionId: string;
  private readonly shared: AccountSocket;
  private readonly member: SocketMember;
  private readonly connectsSubject = new Subject<{ readonly reconnect: boolean }>();
  private readonly updatesSubject = new Subject<unknown>();
  private rpcHandler: ((payload: unknown, ack: (answer: unknown) => void) => void) | undefined;
  private readonly logger: Logger;
  private readonly leave: () => void;
  private connectCount = 0;
  private closed = false;
  private awaited = 0;

  /** Emits on every successful connect; `reconnect` is true after the first. */
  readonly connects$: Observable<{ readonly reconnect: boolean }> = this.connectsSubject.asObservable();
  /** The `update` events about this session (`new-message`, `update-session`). */
  readonly updates$: Observable<unknown> = this.updatesSubject.asObservable();

  constructor(options: SessionSocketOptions) {
    this.logger = options.logger ?? silentLogger;
    this.sessionId = options.sessionId;
    this.shared = accountSocket(accountName(options), {
      serverUrl: options.serverUrl,
      token: options.token,
      logger: this.logger,
      ...(options.reconnectionDelayMs !== undefined
        ? { reconnectionDelayMs: options.reconnectionDelayMs }
        : {}),
      ...(options.reconnectionDelayMaxMs !== undefined
        ? { reconnectionDelayMaxMs: options.reconnectionDelayMaxMs }
        : {}),
    });
    this.socket = this.shared.socket;
    const member: SocketMember = {
      sessionId: options.sessionId,
      onConnect: () => this.onConnect(),
      onUpdate: (update) => this.updatesSubject.next(update),
      onRpcRequest: (payload, ack) => {
        if (this.rpcHandler) this.rpcHandler(payload, ack);
      },
    };
    this.member = member;
    this.leave = this.shared.join(member);
    // A socket that is up already connects no more: this session's first notice comes at once,
    // after its owner has subscribed.
    if (this.shared.connected) queueMicrotask(() => this.onConnect());
  }

  /** True while connected. */
  get connected(): boolean {
    return this.socket.connected;
  }

  /** The pace of the idle tail checks of the sessions on this socket. */
  get tailChecks(): TailCheckPacer {
    return this.shared.tailChecks;
  }

  /** The one heartbeat timer of the sessions on this socket. */
  get heartbeats(): HeartbeatClock {
    return this.shared.heartbeats;
  }

  /**
   * Resolves once connected. Rejects with `transport.unauthorized` when the handshake's token is
   * refused, `transport.socket_refused` (the server's reason in its message and `details.reason`)
   * when the server turns the socket away for another reason, or `transport.network` when no
   * connection is made within `timeoutMs` (default 20 s).
   */
  ready(timeoutMs = 20_000): Promise<void> {
    if (this.closed) return Promise.reject(closedError());
    if (this.socket.connected) return Promise.resolve();
    const standing = this.shared.refusal;
    if (standing && !this.socket.active) return Promise.reject(standing);
    return new Promise((resolve, reject) => {
      const cleanup = (): void => {
        clearTimeout(timer);
        this.socket.off('connect', onConnect);
        offRefusal();
      };
      const onConnect = (): void => {
        cleanup();
        resolve();
      };
      const offRefusal = this.shared.onRefusal((refusal) => {
        // An active socket keeps retrying by itself; a refusal of a socket that gave up is final.
        if (this.socket.active) return;
        cleanup();
        reject(refusal);
      });
      const timer = setTimeout(() => {
        cleanup();
        reject(
          this.shared.refusal ??
            new SdkError('transport.network', `The socket did not connect within ${timeoutMs} ms.`, {
              hint: 'check the network and HAPPY_SERVER_URL',
            }),
        );
      }, timeoutMs);
      this.socket.on('connect', onConnect);
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
    this.awaited += 1;
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
    } finally {
      this.awaited -= 1;
    }
  }

  /** How many {@link SessionSocket.emitWithAck} calls wait for their ack now. */
  get acksAwaited(): number {
    return this.awaited;
  }

  /** Emits without an ack. `volatile` drops the packet while disconnected (heartbeats). */
  emit(event: string, payload: unknown, options: { volatile?: boolean } = {}): void {
    if (this.closed) return;
    if (options.volatile) this.socket.volatile.emit(event, payload);
    else this.socket.emit(event, payload);
  }

  /**
   * Sets who answers this session's `rpc-request`s (one handler: the session's RPC registry).
   * Returns the unset.
   */
  handleRpcRequests(handler: (payload: unknown, ack: (answer: unknown) => void) => void): () => void {
    this.rpcHandler = handler;
    return () => {
      if (this.rpcHandler === handler) this.rpcHandler = undefined;
    };
  }

  /** Registers this session's RPC method `method` (its full `<sessionId>:<name>`) with the server. */
  registerRpc(method: string): void {
    if (!this.closed) this.shared.register(this.member, method);
  }

  /** Unregisters `method` (full name), unless another session object has registered it since. */
  unregisterRpc(method: string): void {
    this.shared.unregister(this.member, method);
  }

  /**
   * Drops the underlying connection as a network failure would; socket.io then reconnects with
   * backoff. For fault tests and for callers that know the link is stale. Every session on the
   * account's socket reconnects with it.
   */
  dropConnection(): void {
    this.socket.io.engine?.close();
  }

  /** Leaves the account's socket for good (the last session to leave closes it). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.rpcHandler = undefined;
    this.leave();
    this.connectsSubject.complete();
    this.updatesSubject.complete();
  }

  private onConnect(): void {
    if (this.closed) return;
    this.connectCount += 1;
    this.logger.debug('socket connected', { reconnect: this.connectCount > 1 });
    this.connectsSubject.next({ reconnect: this.connectCount > 1 });
  }
}

/** The account a socket is shared by: the caller's name for it, else the token. */
function accountName(options: SessionSocketOptions): string {
  if (options.account !== undefined) return `account:${options.account}`;
  if (typeof options.token === 'string') return `token:${options.token}`;
  let name = unnamed.get(options.token);
  if (name === undefined) unnamed.set(options.token, (name = `reader:${++unnamedCount}`));
  return name;
}

function closedError(): SdkError {
  return new SdkError('transport.closed', 'The session socket is closed.', {
    hint: 'open the session again with connect()',
  });
}
