import type { Server, Socket } from 'socket.io';

/** How often an `rpc-call` looks for a target that has not registered yet. */
const LOOKUP_POLL_MS = 200;
/** How often a call in flight checks that its target is still registered. */
const PRESENCE_POLL_MS = 2_000;

/** The answer an `rpc-call` acks to its caller (docs/wire.md §7.1). */
export type RpcCallResult = { ok: true; result: unknown } | { ok: false; error: string };

/** Room of the sockets that registered `method` for account `userId`. */
export function rpcRoom(userId: string, method: string): string {
  return `rpc:${userId}:${method}`;
}

/** Timing of an RPC forward. */
export interface RpcForwardOptions {
  /** How long to wait for a target to register the method. */
  waitMs: number;
  /** How long to wait for the target's ack. */
  callTimeoutMs: number;
  /** Ends any wait when the relay closes. */
  signal: AbortSignal;
}

/**
 * The socket that registered `room`'s method last: a room keeps its members in the order they
 * joined, and a registration moves its socket to the end (see `installRpcEvents`). The last to
 * register is the session's writer-lease holder, which registers when it takes the session over
 * (docs/writer-lease.md, "RPC follows the holder"), as the Happy server's registry, which keeps
 * one socket per method, lets the last registration win.
 */
function newestMember(io: Server, room: string): Socket | undefined {
  const members = io.sockets.adapter.rooms.get(room);
  if (!members) return undefined;
  let newest: Socket | undefined;
  for (const id of members) newest = io.sockets.sockets.get(id) ?? newest;
  return newest;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const onAbort = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

async function waitForMember(
  io: Server,
  room: string,
  options: RpcForwardOptions,
): Promise<Socket | undefined> {
  const deadline = Date.now() + options.waitMs;
  for (;;) {
    const target = newestMember(io, room);
    if (target || Date.now() >= deadline || options.signal.aborted) return target;
    await sleep(Math.min(LOOKUP_POLL_MS, Math.max(0, deadline - Date.now())), options.signal);
  }
}

/**
 * Forwards one `rpc-call` of `caller` to the socket of the same account that registered `method`
 * last, with the real server's rules and error strings (§7.1): wait for a target to appear,
 * refuse a call to the caller itself, give up when the target disconnects or leaves the room
 * (two missed presence checks), and time out the ack.
 */
export async function forwardRpcCall(
  io: Server,
  caller: Socket,
  userId: string,
  method: string,
  params: unknown,
  options: RpcForwardOptions,
): Promise<RpcCallResult> {
  const room = rpcRoom(userId, method);
  const target = await waitForMember(io, room, options);
  if (!target) return { ok: false, error: 'RPC method not available' };
  if (target.id === caller.id) return { ok: false, error: 'Cannot call RPC on the same socket' };

  let cleanup = () => {};
  const gone = new Promise<never>((_, reject) => {
    const onDisconnect = () => reject(new Error('RPC target disconnected'));
    let misses = 0;
    const presence = setInterval(() => {
      misses = io.sockets.adapter.rooms.get(room)?.has(target.id) ? 0 : misses + 1;
      if (misses >= 2) reject(new Error('RPC target disconnected'));
    }, PRESENCE_POLL_MS);
    const onClose = () => reject(new Error('Internal error'));
    // One listener per call in flight: raise the limit with each, so many concurrent calls to one
    // agent are not reported as a leak, while a listener that is never removed still would be.
    target.setMaxListeners(target.getMaxListeners() + 1);
    target.once('disconnect', onDisconnect);
    options.signal.addEventListener('abort', onClose, { once: true });
    cleanup = () => {
      clearInterval(presence);
      target.off('disconnect', onDisconnect);
      target.setMaxListeners(Math.max(10, target.getMaxListeners() - 1));
      options.signal.removeEventListener('abort', onClose);
    };
  });
  try {
    const result: unknown = await Promise.race([
      target.timeout(options.callTimeoutMs).emitWithAck('rpc-request', { method, params }),
      gone,
    ]);
    return { ok: true, result };
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : 'RPC call failed' };
  } finally {
    cleanup();
  }
}
