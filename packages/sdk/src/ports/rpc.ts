import type { MaybePromise } from '../crypto/aesGcm.js';

/** Context handed to an RPC handler. */
export interface RpcContext {
  /** The bare method name, without the `<sessionId>:` prefix. */
  readonly method: string;
  /**
   * Runs `task` once the handler's answer is on its way to the caller: work that follows from the
   * answer (records, mirrors, notifications) then does not hold it back. Tasks run in the order
   * they were added, right after the answer is sent, also when it could not be sent (a result too
   * large, a closed socket); a task that throws does not stop the others.
   */
  afterAnswer(task: () => void): void;
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

/**
 * The tasks handlers asked to run after their answer ({@link RpcContext.afterAnswer}), run by the
 * registry once it has sent the answer.
 */
export class AnswerFollowUps {
  private readonly tasks: Array<() => void> = [];

  constructor(private readonly onError: (error: unknown) => void) {}

  /** Adds a task. */
  add(task: () => void): void {
    this.tasks.push(task);
  }

  /** Runs every task added so far, once, in order; errors go to `onError`. */
  run(): void {
    for (const task of this.tasks.splice(0)) {
      try {
        task();
      } catch (error) {
        this.onError(error);
      }
    }
  }
}

/**
 * Runs a handler with the wire's error convention: a throw becomes `{ error: message }`. The
 * result comes back without a promise when the handler returns one without a promise, so a
 * registry can answer in the same tick. Tasks the handler asks for go to `followUps`.
 */
export function invokeRpcHandler(
  handler: RpcHandler | undefined,
  method: string,
  params: unknown,
  followUps: AnswerFollowUps,
): MaybePromise<unknown> {
  if (!handler) return { error: 'Method not found' };
  let result: unknown;
  try {
    result = handler(params, { method, afterAnswer: (task) => followUps.add(task) });
  } catch (error) {
    return errorResult(error);
  }
  return isThenable(result) ? Promise.resolve(result).then(undefined, errorResult) : result;
}

function errorResult(error: unknown): { error: string } {
  return { error: error instanceof Error ? error.message : String(error) };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
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

  /**
   * Calls `method` as the app would; resolves with the handler's result (or `{ error }`). The
   * handler's {@link RpcContext.afterAnswer} tasks run once the result is serialised, as the
   * socket registry runs them once the answer is sent; an error in one is thrown from `call` after
   * the others ran (a test should see it).
   */
  async call(method: string, params: unknown): Promise<unknown> {
    const wireParams: unknown = JSON.parse(JSON.stringify(params ?? null));
    const failures: unknown[] = [];
    const followUps = new AnswerFollowUps((error) => failures.push(error));
    let answer: unknown;
    try {
      const result = await invokeRpcHandler(this.handlers.get(method), method, wireParams, followUps);
      answer = result === undefined ? null : JSON.parse(JSON.stringify(result));
    } finally {
      followUps.run();
    }
    if (failures.length > 0) throw failures[0];
    return answer;
  }

  /** True when a handler is registered for `method`. */
  has(method: string): boolean {
    return this.handlers.has(method);
  }
}
