import type { Server, Socket } from 'socket.io';
import type { RelayContext } from '../context.js';
import { forwardRpcCall, rpcRoom } from '../rpc.js';
import { asAck, asRecord, socketData } from './data.js';

/**
 * RPC events of a socket (docs/wire.md §7.1). Registration rooms are per account, so a socket
 * can only ever reach methods registered by sockets of its own account, and has at most
 * `rpcCallsInFlight` calls waiting at once (docs/relay.md, "Limits").
 */
export function installRpcEvents(io: Server, socket: Socket, ctx: RelayContext): void {
  const { userId } = socketData(socket);

  const membership = (type: 'register' | 'unregister') => (payload: unknown) => {
    const { method } = asRecord(payload);
    if (typeof method !== 'string' || !method) {
      socket.emit('rpc-error', { type, error: 'Invalid method name' });
      return;
    }
    if (type === 'register') {
      const room = rpcRoom(userId, method);
      // Registering again moves the socket to the end: the last registration is the one routed to.
      if (socket.rooms.has(room)) void socket.leave(room);
      void socket.join(room);
      socket.emit('rpc-registered', { method });
    } else {
      void socket.leave(rpcRoom(userId, method));
      socket.emit('rpc-unregistered', { method });
    }
  };
  socket.on('rpc-register', membership('register'));
  socket.on('rpc-unregister', membership('unregister'));

  socket.on('rpc-call', async (payload: unknown, callback: unknown) => {
    const ack = asAck(callback);
    const { method, params } = asRecord(payload);
    if (typeof method !== 'string' || !method) {
      ack?.({ ok: false, error: 'Invalid parameters: method is required' });
      return;
    }
    if (!ctx.rpcCalls.acquire(userId)) {
      ack?.({ ok: false, error: 'Too many RPC calls in flight' });
      return;
    }
    try {
      const result = await forwardRpcCall(io, socket, userId, method, params, {
        waitMs: ctx.rpcWaitMs,
        callTimeoutMs: ctx.rpcCallTimeoutMs,
        signal: ctx.closing,
      });
      ack?.(result);
    } catch (error) {
      ctx.logger.error('rpc-call failed', { method, error: String(error) });
      ack?.({ ok: false, error: 'Internal error' });
    } finally {
      ctx.rpcCalls.release(userId);
    }
  });
}
