import type { Subscription } from 'rxjs';
import { decryptRecord, encryptRecordBase64 } from '../crypto/records.js';
import type { RecordKey } from '../crypto/records.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { invokeRpcHandler } from '../ports/rpc.js';
import type { RpcHandler, RpcRegistry } from '../ports/rpc.js';
import type { SessionSocket } from './sessionSocket.js';

/** socket.io's default packet limit, which the real server keeps (docs/wire.md §0). */
const MAX_PACKET_BYTES = 1024 * 1024;

type Ack = (result: string) => void;

/**
 * Session RPC over the session socket (docs/wire.md §7): methods are registered as
 * `<sessionId>:<method>` on every (re)connect; params are decrypted and results encrypted with the
 * session key and variant; an unknown method answers `{error: 'Method not found'}` and a throwing
 * handler `{error: message}`, both encrypted, as the CLI does.
 */
export class SocketRpc implements RpcRegistry {
  private readonly handlers = new Map<string, RpcHandler>();
  private readonly connects: Subscription;
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
    // Registrations belong to the socket on the server, so every reconnect starts from none.
    this.connects = socket.connects$.subscribe(() => {
      for (const method of this.handlers.keys()) this.emitRegister(method);
    });
    socket.socket.on('rpc-request', (payload: unknown, ack: unknown) => {
      if (typeof ack !== 'function') return;
      this.inFlight += 1;
      void this.handle(payload, ack as Ack).finally(() => {
        this.inFlight -= 1;
        if (this.inFlight === 0) this.notifyIdle();
      });
    });
    socket.socket.on('rpc-error', (error: unknown) => this.logger.warn('rpc error from server', { error }));
  }

  register(method: string, handler: RpcHandler): () => void {
    const isNew = !this.handlers.has(method);
    this.handlers.set(method, handler);
    if (isNew && this.socket.connected) this.emitRegister(method);
    return () => {
      if (this.handlers.get(method) !== handler) return;
      this.handlers.delete(method);
      this.socket.emit('rpc-unregister', { method: this.prefix + method });
    };
  }

  /** Bare names of the registered methods. */
  get methods(): readonly string[] {
    return [...this.handlers.keys()];
  }

  /** Resolves when no RPC request is being handled (its ack has been sent). */
  idle(): Promise<void> {
    if (this.inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stops answering requests. */
  close(): void {
    this.connects.unsubscribe();
    this.socket.socket.off('rpc-request');
  }

  private emitRegister(method: string): void {
    this.socket.emit('rpc-register', { method: this.prefix + method });
  }

  private async handle(payload: unknown, ack: Ack): Promise<void> {
    const { method, params } = (payload ?? {}) as { method?: unknown; params?: unknown };
    const bare =
      typeof method === 'string' && method.startsWith(this.prefix) ? method.slice(this.prefix.length) : '';
    let result: unknown;
    if (typeof params !== 'string') {
      result = { error: 'Invalid parameters' };
    } else {
      const decrypted = await decryptRecord(params, this.key);
      if (!decrypted.ok) {
        this.logger.warn('rpc params do not decrypt', { method, code: decrypted.error.code });
        result = { error: 'Invalid parameters' };
      } else {
        result = await invokeRpcHandler(this.handlers.get(bare), bare, decrypted.value);
      }
    }
    let encrypted: string;
    try {
      encrypted = await encryptRecordBase64(result, this.key);
    } catch (error) {
      // A result JSON cannot carry (a BigInt, a cycle) is the handler's error, not silence.
      encrypted = await encryptRecordBase64(
        { error: error instanceof Error ? error.message : String(error) },
        this.key,
      );
    }
    if (encrypted.length > MAX_PACKET_BYTES) {
      this.logger.warn('rpc result too large for one socket packet', { method, bytes: encrypted.length });
      encrypted = await encryptRecordBase64({ error: 'Result too large' }, this.key);
    }
    ack(encrypted);
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const w of waiters) w();
  }
}
