/** Context handed to an RPC handler. */
export interface RpcContext {
  /** The bare method name, without the `<sessionId>:` prefix. */
  readonly method: string;
}

/**
 * Handles one session RPC (docs/wire.md §7). Params arrive decrypted; the return value is encrypted
 * back to the caller. A thrown error goes back as `{ error: message }` (the CLI's convention).
 */
export type RpcHandler = (params: unknown, context: RpcContext) => unknown;

/**
 * Where session RPC handlers are registered, by bare method name (`permission`, `abort`,
 * `killSession`, or a custom one). The transport adds the `<sessionId>:` prefix and re-registers
 * after every reconnect.
 */
export interface RpcRegistry {
  /** Registers `handler` for `method`, replacing any earlier one; returns a function that removes it. */
  register(method: string, handler: RpcHandler): () => void;
}

/** What a session RPC came back with: the decrypted result, or why there is none. */
export type RpcOutcome =
  { readonly ok: true; readonly result: unknown } | { readonly ok: false; readonly error: string };

/**
 * Calls one of the agent's session RPCs from the user's side (docs/wire.md §7.1): params go
 * encrypted with the session key, the result comes back decrypted. Never rejects: no agent, a
 * time-out or an undecryptable result are `ok: false`. `callSessionRpc` implements it over a
 * user-scoped socket.
 */
export type SessionRpcCaller = (method: string, params: unknown) => Promise<RpcOutcome>;

/** Runs a handler with the wire's error convention: a throw becomes `{ error: message }`. */
export async function invokeRpcHandler(
  handler: RpcHandler | undefined,
  method: string,
  params: unknown,
): Promise<unknown> {
  if (!handler) return { error: 'Method not found' };
  try {
    return await handler(params, { method });
  } catch (error) {
    return { error: error instanceof Error ? error.message : String(error) };
  }
}

/**
 * In-process RPC for one session: handlers registered by the agent side, {@link MemoryRpc.call}
 * used by the other side (a test, the demo's scripted user). Params and results go through JSON, as
 * they would through encryption on the wire.
 */
export class MemoryRpc implements RpcRegistry {
  private readonly handlers = new Map<string, RpcHandler>();

  register(method: string, handler: RpcHandler): () => void {
    this.handlers.set(method, handler);
    return () => {
      if (this.handlers.get(method) === handler) this.handlers.delete(method);
    };
  }

  /** Calls `method` as the app would; resolves with the handler's result (or `{ error }`). */
  async call(method: string, params: unknown): Promise<unknown> {
    const wireParams: unknown = JSON.parse(JSON.stringify(params ?? null));
    const result = await invokeRpcHandler(this.handlers.get(method), method, wireParams);
    return result === undefined ? null : JSON.parse(JSON.stringify(result));
  }

  /** True when a handler is registered for `method`. */
  has(method: string): boolean {
    return this.handlers.has(method);
  }
}
