import type { Server, Socket } from 'socket.io';
import { newUpdateId } from './ids.js';
import type { AccountStore } from './store/accounts.js';
import type { SessionRecord } from './store/sessions.js';
import type { MessageRecord } from './store/messages.js';
import { encodeDataKey, messageJson } from './wire.js';

/** Who receives an event (docs/wire.md §2.2). */
export type RecipientFilter =
  | { type: 'all-interested-in-session'; sessionId: string }
  | { type: 'user-scoped-only' }
  | { type: 'all-user-authenticated-connections' };

/** The body of an `update` event; `t` names its kind (§2.3). */
export type UpdateBody = { t: string } & Record<string, unknown>;

/** An `ephemeral` event; `type` names its kind (§2.3). */
export type EphemeralBody = { type: string } & Record<string, unknown>;

/** Room every socket of account `userId` joins. */
export function userRoom(userId: string): string {
  return `user:${userId}`;
}

/** Room of the user-scoped (UI) sockets of an account. */
export function userScopedRoom(userId: string): string {
  return `user:${userId}:user-scoped`;
}

/** Room of the session-scoped sockets of one session. */
export function sessionRoom(userId: string, sessionId: string): string {
  return `user:${userId}:session:${sessionId}`;
}

/** Room of the machine-scoped sockets of one machine. */
export function machineRoom(userId: string, machineId: string): string {
  return `user:${userId}:machine:${machineId}`;
}

function roomsFor(userId: string, filter: RecipientFilter): string[] {
  switch (filter.type) {
    case 'all-interested-in-session':
      return [sessionRoom(userId, filter.sessionId), userScopedRoom(userId)];
    case 'user-scoped-only':
      return [userScopedRoom(userId)];
    case 'all-user-authenticated-connections':
      return [userRoom(userId)];
  }
}

/**
 * Sends `update` and `ephemeral` events to the rooms of one account. Rooms are per account, so
 * nothing can ever reach a socket of another account.
 */
export class EventRouter {
  constructor(
    private readonly io: Server,
    private readonly accounts: AccountStore,
  ) {}

  /** Emits an `update`, numbered with the account's next update seq. `skip` leaves out the sender. */
  emitUpdate(userId: string, body: UpdateBody, filter: RecipientFilter, skip?: Socket): void {
    const payload = {
      id: newUpdateId(),
      seq: this.accounts.nextUpdateSeq(userId),
      body,
      createdAt: Date.now(),
    };
    const rooms = roomsFor(userId, filter);
    if (skip) skip.to(rooms).emit('update', payload);
    else this.io.to(rooms).emit('update', payload);
  }

  /** Emits an `ephemeral` event. */
  emitEphemeral(userId: string, body: EphemeralBody, filter: RecipientFilter): void {
    this.io.to(roomsFor(userId, filter)).emit('ephemeral', body);
  }

  /** True when a user-scoped socket of the account reported `appState: 'active'` (push suppression). */
  async hasActiveUiClient(userId: string): Promise<boolean> {
    const sockets = await this.io.in(userScopedRoom(userId)).fetchSockets();
    return sockets.some((socket) => (socket.data as { appState?: string }).appState === 'active');
  }
}

/** `new-session` update body. */
export function newSessionBody(session: SessionRecord): UpdateBody {
  return {
    t: 'new-session',
    id: session.id,
    seq: session.seq,
    metadata: session.metadata,
    metadataVersion: session.metadataVersion,
    agentState: session.agentState,
    agentStateVersion: session.agentStateVersion,
    dataEncryptionKey: encodeDataKey(session.dataEncryptionKey),
    active: session.active,
    activeAt: session.lastActiveAt,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
  };
}

/** `new-message` update body. */
export function newMessageBody(sessionId: string, message: MessageRecord): UpdateBody {
  return { t: 'new-message', sid: sessionId, message: messageJson(message) };
}

/** `update-session` update body; only the part that changed is present. */
export function updateSessionBody(
  sessionId: string,
  change:
    | { metadata: { value: string; version: number } }
    | { agentState: { value: string | null; version: number } },
): UpdateBody {
  return { t: 'update-session', id: sessionId, ...change };
}

/** `delete-session` update body. */
export function deleteSessionBody(sessionId: string): UpdateBody {
  return { t: 'delete-session', sid: sessionId };
}

/** `activity` ephemeral. */
export function activityEphemeral(
  sessionId: string,
  active: boolean,
  activeAt: number,
  thinking: boolean,
): EphemeralBody {
  return { type: 'activity', id: sessionId, active, activeAt, thinking };
}
