import type { Server, Socket } from 'socket.io';
import type { RelayContext } from '../context.js';
import { machineRoom, sessionRoom, userRoom, userScopedRoom } from '../events.js';
import { asAck, asRecord, socketData } from './data.js';
import { installRpcEvents } from './rpcEvents.js';
import { installSessionEvents } from './sessionEvents.js';
import { installUsageEvents } from './usageEvents.js';

function machineActivity(machineId: string, active: boolean) {
  return { type: 'machine-activity', id: machineId, active, activeAt: Date.now() };
}

/**
 * Sets up an authenticated socket: joins its rooms (docs/wire.md §2.2), attaches every event
 * handler, and announces machine sockets to the account's UIs.
 */
export function handleConnection(io: Server, socket: Socket, ctx: RelayContext): void {
  const data = socketData(socket);
  const { userId } = data;
  const rooms = [userRoom(userId)];
  if (data.clientType === 'session-scoped' && data.sessionId) rooms.push(sessionRoom(userId, data.sessionId));
  else if (data.clientType === 'machine-scoped' && data.machineId)
    rooms.push(machineRoom(userId, data.machineId));
  else rooms.push(userScopedRoom(userId));
  void socket.join(rooms);
  ctx.logger.debug('socket connected', { userId, clientType: data.clientType, socketId: socket.id });

  if (data.machineId) {
    ctx.events.emitEphemeral(userId, machineActivity(data.machineId, true), { type: 'user-scoped-only' });
  }
  socket.on('disconnect', () => {
    ctx.logger.debug('socket disconnected', { userId, socketId: socket.id });
    ctx.presence.socketClosed(userId, socket.id);
    if (data.machineId) {
      ctx.events.emitEphemeral(userId, machineActivity(data.machineId, false), { type: 'user-scoped-only' });
    }
  });

  socket.on('ping', (callback: unknown) => {
    asAck(callback)?.({});
  });
  socket.on('app-state', (payload: unknown) => {
    data.appState = asRecord(payload).state === 'active' ? 'active' : 'background';
  });

  installRpcEvents(io, socket, ctx);
  installUsageEvents(socket, ctx);
  installSessionEvents(socket, ctx);
}
