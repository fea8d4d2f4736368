import type { Socket } from 'socket.io';

/** The three kinds of socket client (docs/wire.md §2.1). */
export type ClientType = 'session-scoped' | 'user-scoped' | 'machine-scoped';

/** What the relay remembers about an authenticated socket. */
export interface SocketData {
  userId: string;
  clientType: ClientType;
  sessionId?: string;
  machineId?: string;
  /** Reported by UIs; an `active` UI suppresses pushes (§9 item 4). */
  appState?: 'active' | 'background';
}

/** The relay's data of an authenticated socket. */
export function socketData(socket: Socket): SocketData {
  return socket.data as SocketData;
}

/** An acknowledgement callback, if the client sent one. */
export type Ack = (response: unknown) => void;

/** Narrows socket.io's last handler argument to an ack callback. */
export function asAck(value: unknown): Ack | undefined {
  return typeof value === 'function' ? (value as Ack) : undefined;
}

/** Narrows an event payload to a plain object. */
export function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : {};
}
