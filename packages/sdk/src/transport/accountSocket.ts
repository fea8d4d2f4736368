import type { Socket } from 'socket.io-client';
import type { SdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { TailCheckPacer } from '../ports/tailCheckPacer.js';
import { HeartbeatClock } from './heartbeatClock.js';
import { socketIo } from './socketIo.js';
import { socketRefusal } from './socketRefusal.js';

/** How to open an {@link AccountSocket}. */
export interface AccountSocketOptions {
  readonly serverUrl: string;
  /** The bearer token, or where to read it at each (re)connect (a renewed token is then used). */
  readonly token: string | (() => string);
  /** First reconnection delay; default 1 s (happy-agent's value, docs/wire.md §2.1). */
  readonly reconnectionDelayMs?: number;
  /** Longest reconnection delay; default 5 s. */
  readonly reconnectionDelayMaxMs?: number;
  readonly logger?: Logger;
}

/** One session on an {@link AccountSocket}: what the socket hands it. */
export interface SocketMember {
  readonly sessionId: string;
  /** The socket connected (again). */
  onConnect(): void;
  /** An `update` about this session (`new-message`, `update-session`). */
  onUpdate(update: unknown): void;
  /** An `rpc-request` for one of this session's methods (`<sessionId>:<method>`). */
  onRpcRequest(payload: unknown, ack: (answer: unknown) => void): void;
}

type Ack = (answer: unknown) => void;

/**
 * One user-scoped socket.io connection to `/v1/updates` for every session of one account on one
 * server in this process (docs/transport.md, "One socket per account"). The Happy server lets any
 * socket of the account register any session's RPC methods (`<sessionId>:<method>`), send any
 * session's `session-alive` and state updates, and gives a user-scoped socket every session's
 * `update`s (docs/wire.md §2.2, §7.1), so sockets do not grow with sessions. This class routes:
 * an update to the sessions it names, an RPC request to the session that registered the method
 * (the last one, should two objects of one session both register it), a connect to every session. It says
 * `appState: 'background'` in its handshake, so it never counts as someone watching in the app
 * (which would hold back pushes).
 */
export class AccountSocket {
  /** The socket.io client socket, shared by every session on it. */
  readonly socket: Socket;
  /** The one timer of every session's heartbeat on this socket. */
  readonly heartbeats = new HeartbeatClock();
  /** The pace of the idle tail checks of every session's feeds on this socket. */
  readonly tailChecks = new TailCheckPacer();
  private readonly members = new Map<string, Set<SocketMember>>();
  /** Who answers each registered method: the member that registered it last. */
  private readonly routes = new Map<string, SocketMember>();
  private readonly logger: Logger;
  private readonly retryMs: number;
  private everConnected = false;
  private closed = false;
  private refusalNow: SdkError | undefined;
  private readonly refusalListeners = new Set<(error: SdkError) => void>();

  constructor(
    options: AccountSocketOptions,
    /** Called once the last member has left (the socket is closed by then). */
    private readonly onEmpty: () => void = () => undefined,
  ) {
    this.logger = options.logger ?? silentLogger;
    this.retryMs = options.reconnectionDelayMaxMs ?? 5000;
    this.socket = socketIo()(options.serverUrl, {
      path: '/v1/updates',
      transports: ['websocket'],
      // Read at every (re)connect, so a token renewed meanwhile is the one sent.
      auth: (send) =>
        send({
          token: typeof options.token === 'function' ? options.token() : options.token,
          clientType: 'user-scoped',
          appState: 'background',
          happyClient: 'cli-coding-session/happy-session',
        }),
      reconnection: true,
      reconnectionDelay: options.reconnectionDelayMs ?? 1000,
      reconnectionDelayMax: this.retryMs,
      reconnectionAttempts: Infinity,
      // Each socket has a connection of its own (socket.io would otherwise share one Manager).
      forceNew: true,
      // The socket does not keep the process alive: what the program waits on does
      // (docs/recovery.md, "When the program's code ends").
      autoUnref: true,
    });
    this.socket.on('connect', () => this.onConnect());
    this.socket.on('disconnect', (reason) => {
      this.logger.debug('socket disconnected', { reason });
      // socket.io does not reconnect by itself after a server-side disconnect; we still want to.
      if (reason === 'io server disconnect' && !this.closed) this.socket.connect();
    });
    this.socket.on('connect_error', (error: Error) => this.onConnectError(error));
    this.socket.on('update', (update: unknown) => this.onUpdate(update));
    this.socket.on('rpc-request', (payload: unknown, ack: unknown) => {
      if (typeof ack === 'function') this.onRpcRequest(payload, ack as Ack);
    });
    this.socket.on('rpc-error', (error: unknown) => this.logger.warn('rpc error from server', { error }));
  }

  /** True while connected. */
  get connected(): boolean {
    return this.socket.connected;
  }

  /** The server's refusal of the last handshake, while it stands. */
  get refusal(): SdkError | undefined {
    return this.refusalNow;
  }

  /** Number of sessions on this socket. */
  get size(): number {
    let n = 0;
    for (const set of this.members.values()) n += set.size;
    return n;
  }

  /** Calls `listener` with the server's refusal of a handshake; returns the unsubscribe. */
  onRefusal(listener: (error: SdkError) => void): () => void {
    this.refusalListeners.add(listener);
    return () => this.refusalListeners.delete(listener);
  }

  /** Adds a session; returns how it leaves (the socket closes when the last one has left). */
  join(member: SocketMember): () => void {
    let set = this.members.get(member.sessionId);
    if (!set) this.members.set(member.sessionId, (set = new Set()));
    set.add(member);
    return () => this.leave(member);
  }

  /** Registers `method` (full name) for `member`; it answers the method's requests from now on. */
  register(member: SocketMember, method: string): void {
    this.routes.set(method, member);
    if (this.connected) this.socket.emit('rpc-register', { method });
  }

  /** Unregisters `method` when `member` is the one answering it (another may have taken it over). */
  unregister(member: SocketMember, method: string): void {
    if (this.routes.get(method) !== member) return;
    this.routes.delete(method);
    if (this.connected) this.socket.emit('rpc-unregister', { method });
  }

  private leave(member: SocketMember): void {
    const set = this.members.get(member.sessionId);
    if (!set?.delete(member)) return;
    if (set.size === 0) this.members.delete(member.sessionId);
    for (const [method, owner] of this.routes) if (owner === member) this.unregister(member, method);
    if (this.members.size > 0) return;
    this.closed = true;
    this.socket.disconnect();
    this.onEmpty();
  }

  private onConnect(): void {
    this.everConnected = true;
    this.refusalNow = undefined;
    this.logger.debug('socket connected', { sessions: this.size });
    // Registrations belong to the socket on the server, so every connect starts from none.
    for (const method of this.routes.keys()) this.socket.emit('rpc-register', { method });
    for (const set of this.members.values()) for (const member of set) member.onConnect();
  }

  private onConnectError(error: Error): void {
    this.logger.debug('socket connect error', { message: error.message });
    const refusal = socketRefusal(error, this.socket.active);
    if (!refusal) return;
    this.refusalNow = refusal;
    for (const listener of this.refusalListeners) listener(refusal);
    // A socket that was connected before keeps its sessions: try again later (the limit may free up).
    if (this.everConnected && !this.socket.active && !this.closed) {
      this.logger.warn('the server refused the socket; trying again', { reason: error.message });
      setTimeout(() => {
        if (!this.closed) this.socket.connect();
      }, this.retryMs).unref?.();
    }
  }

  private onUpdate(update: unknown): void {
    const body = (update as { body?: { t?: unknown; sid?: unknown; id?: unknown } } | null)?.body;
    const sessionId =
      body?.t === 'new-message' ? body.sid : body?.t === 'update-session' ? body.id : undefined;
    if (typeof sessionId !== 'string') return;
    const set = this.members.get(sessionId);
    if (set) for (const member of set) member.onUpdate(update);
  }

  private onRpcRequest(payload: unknown, ack: Ack): void {
    const method = (payload as { method?: unknown } | null)?.method;
    if (typeof method !== 'string') return;
    // A method nobody registered through us (sent raw on the socket) goes to its session, which
    // answers it as unknown, as the CLI does.
    const member = this.routes.get(method) ?? this.firstOf(method.slice(0, method.indexOf(':')));
    if (member) {
      member.onRpcRequest(payload, ack);
      return;
    }
    // A session that has left: stop the server routing its calls here.
    this.logger.debug('rpc request for no session on this socket', { method });
    this.socket.emit('rpc-unregister', { method });
  }

  private firstOf(sessionId: string): SocketMember | undefined {
    const set = this.members.get(sessionId);
    return set ? set.values().next().value : undefined;
  }
}
