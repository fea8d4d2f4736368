import type { Server } from 'socket.io';
import type { RelayContext } from '../context.js';
import { resolveToken } from '../context.js';
import type { ClientType, SocketData } from './data.js';

/**
 * Handshake authentication as socket.io middleware, so handlers are attached before the client's
 * `connect` fires. Failures reach the client as `connect_error` with the real server's messages
 * (docs/wire.md §2.1). Session ownership is checked per event, not here, as on the real server.
 * An account has at most `socketsPerAccount` sockets at once (docs/relay.md, "Limits").
 */
export function installSocketAuth(io: Server, ctx: RelayContext): void {
  io.use((socket, next) => {
    const auth = (socket.handshake.auth ?? {}) as Record<string, unknown>;
    const token = auth.token;
    const clientType = auth.clientType;
    const sessionId = typeof auth.sessionId === 'string' && auth.sessionId ? auth.sessionId : undefined;
    const machineId = typeof auth.machineId === 'string' && auth.machineId ? auth.machineId : undefined;

    if (typeof token !== 'string' || token.length === 0) {
      next(new Error('Missing authentication token'));
      return;
    }
    if (clientType === 'session-scoped' && !sessionId) {
      next(new Error('Session ID required for session-scoped clients'));
      return;
    }
    if (clientType === 'machine-scoped' && !machineId) {
      next(new Error('Machine ID required for machine-scoped clients'));
      return;
    }
    const userId = resolveToken(ctx, token);
    if (!userId) {
      next(new Error('Invalid authentication token'));
      return;
    }
    if (!ctx.sockets.acquire(userId)) {
      next(new Error('Too many connections for this account'));
      return;
    }
    // Given back when the connection closes, whether or not the socket got as far as `connect`.
    socket.conn.once('close', () => ctx.sockets.release(userId));
    // An unknown or missing client type is treated as a UI (user-scoped), like the real server.
    const scope: ClientType =
      clientType === 'session-scoped' || clientType === 'machine-scoped' ? clientType : 'user-scoped';
    const data: SocketData = { userId, clientType: scope };
    if (scope === 'session-scoped' && sessionId) data.sessionId = sessionId;
    if (scope === 'machine-scoped' && machineId) data.machineId = machineId;
    if (auth.appState !== undefined) data.appState = auth.appState === 'active' ? 'active' : 'background';
    socket.data = data;
    next();
  });
}
