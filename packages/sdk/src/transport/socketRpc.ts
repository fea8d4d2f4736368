import type { MaybePromise } from '../crypto/aesGcm.js';
import { decryptRecordNow, encryptRecordBase64Now } from '../crypto/records.js';
import type { RecordKey } from '../crypto/records.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { AnswerFollowUps, invokeRpcHandler } from '../ports/rpc.js';
import type { RpcHandler, RpcRegistry } from '../ports/rpc.js';
import type { SessionSocket } from './sessionSocket.js';

/** socket.io's default packet limit, which the real server keeps (docs/wire.md §0). */
const MAX_PACKET_BYTES = 1024 * 1024;

type Ack = (result: string) => void;

/**
 * Session RPC over the session socket (docs/wire.md §7): methods are registered as
 * `<sessionId>:<method>` on the account's socket, again after every reconnect (the socket does
 * that for all its sessions, docs/transport.md, "One socket per account"); params are decrypted and results encrypted with the
 * session key and variant; an unknown method answers `{error: 'Method not found'}` and a throwing
 * handler `{error: message}`, both encrypted, as the CLI does. With a synchronous cipher (Node) and
 * a handler that returns without a promise, the answer is sent in the tick the request arrived,
 * before anything else queued runs; a handler's `afterAnswer` tasks run right after it
 * (docs/transport.md, "Session RPC").
 */
export class SocketRpc implements RpcRegistry {
  private readonly handlers = new Map<string, RpcHandler>();
  private readonly stopHandling: () => void;
  private readonly logger: Logger;
  private readonly prefix: string;
  private inFlight = 0;
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly socket: SessionSocket,
    sessionId: string,
    private readonly key: RecordKey,
    logger: Logger = silentLogger,
  ) {
    this.logger = logger;
    this.prefix = `${sessionId}:`;
    this.stopHandling = socket.handleRpcRequests((payload: unknown, ack: unknown) => {
      if (typeof ack !== 'function') return;
      this.inFlight += 1;
      const done = (): void => {
        this.inFlight -= 1;
        if (this.inFlight === 0) this.notifyIdle();
      };
      const handled = this.handle(payload, ack as Ack);
      if (handled instanceof Promise) void handled.finally(done);
      else done();
    });
  }

  register(method: string, handler: RpcHandler): () => void {
    const isNew = !this.handlers.has(method);
    this.handlers.set(method, handler);
    if (isNew) this.socket.registerRpc(this.prefix + method);
    return () => {
      if (this.handlers.get(method) !== handler) return;
      this.handlers.delete(method);
      this.socket.unregisterRpc(this.prefix + method);
    };
  }

  /** Bare names of the registered methods. */
  get methods(): readonly string[] {
    return [...this.handlers.keys()];
  }

  /** True while an RPC request is being handled (its ack not sent yet). */
  get busy(): boolean {
    return this.inFlight > 0;
  }

  /** Resolves when no RPC request is being handled (its ack has been sent). */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops answering requests, and unregisters the methods from the server. */
  close(): void {
    this.stopHandling();
    for (const method of this.handlers.keys()) this.socket.unregisterRpc(this.prefix + method);
    this.handlers.clear();
  }

  /** Answers one request; without a promise when nothing on the way needs one. */
  private handle(payload: unknown, ack: Ack): MaybePromise<void> {
    const { method, params } = (payload ?? {}) as { method?: unknown; params?: unknown };
    const followUps = new AnswerFollowUps((error) =>
      this.logger.error('rpc follow-up failed', { method, error: String(error) }),
    );
    const send = (encrypted: string): void => {
      try {
        ack(encrypted);
      } finally {
        followUps.run();
      }
    };
    const sealed = then(this.result(method, params, followUps), (result) => this.seal(method, result));
    if (!(sealed instanceof Promise)) return send(sealed);
    // An async cipher (the browser's WebCrypto) failing is no answer either way: the tasks still run.
    return sealed.then(send, (error: unknown) => {
      this.logger.error('rpc answer could not be sealed', { method, error: String(error) });
      followUps.run();
    });
  }

  /** The handler's result for a request, or the wire's error for bad parameters. */
  private result(method: unknown, params: unknown, followUps: AnswerFollowUps): MaybePromise<unknown> {
    const bare =
      typeof method === 'string' && method.startsWith(this.prefix) ? method.slice(this.prefix.length) : '';
    if (typeof params !== 'string') return { error: 'Invalid parameters' };
    // More than one packet of socket.io's default carries is refused before it is decrypted and
    // parsed: a server with a larger limit must not let one request block the agent.
    if (params.length > MAX_PACKET_BYTES) {
      this.logger.warn('rpc params too large', { method, chars: params.length });
      return { error: 'Parameters too large' };
    }
    return then(decryptRecordNow(params, this.key), (decrypted) => {
      if (!decrypted.ok) {
        this.logger.warn('rpc params do not decrypt', { method, code: decrypted.error.code });
        return { error: 'Invalid parameters' };
      }
      return invokeRpcHandler(this.handlers.get(bare), bare, decrypted.value, followUps);
    });
  }

  /** The result encrypted for the wire; a result JSON cannot carry or too large for a packet is an error. */
  private seal(method: unknown, result: unknown): MaybePromise<string> {
    let encrypted: MaybePromise<string>;
    try {
      encrypted = encryptRecordBase64Now(result, this.key);
    } catch (error) {
      // A result JSON cannot carry (a BigInt, a cycle) is the handler's error, not silence.
      encrypted = encryptRecordBase64Now(
        { error: error instanceof Error ? error.message : String(error) },
        this.key,
      );
    }
    return then(encrypted, (sealed) => {
      if (sealed.length <= MAX_PACKET_BYTES) return sealed;
      this.logger.warn('rpc result too large for one socket packet', { method, bytes: sealed.length });
      return encryptRecordBase64Now({ error: 'Result too large' }, this.key);
    });
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}

/** `fn` applied to a value now, or once its promise resolves. */
function then<T, U>(value: MaybePromise<T>, fn: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return value instanceof Promise ? value.then(fn) : fn(value);
}
