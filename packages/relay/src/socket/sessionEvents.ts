import type { Socket } from 'socket.io';
import type { RelayContext } from '../context.js';
import { newMessageBody, updateSessionBody } from '../events.js';
import { clampActivityTime } from '../presence.js';
import { asAck, asRecord, socketData } from './data.js';
import { STORAGE_FULL, isStorageFull } from '../http/storageFull.js';

/**
 * Session events of a socket (docs/wire.md §2.4, §4.4, §4.5, §5.3): optimistic-concurrency
 * updates of metadata and agent state, heartbeats, session end, and the legacy `message` write.
 * A session of another account is treated as missing; for `update-metadata` that means no ack
 * at all, as on the real server.
 */
export function installSessionEvents(socket: Socket, ctx: RelayContext): void {
  const { userId } = socketData(socket);

  socket.on('update-metadata', (payload: unknown, callback: unknown) => {
    const ack = asAck(callback);
    try {
      const { sid, metadata, expectedVersion } = asRecord(payload);
      if (
        typeof sid !== 'string' ||
        !sid ||
        typeof metadata !== 'string' ||
        typeof expectedVersion !== 'number'
      ) {
        ack?.({ result: 'error' });
        return;
      }
      const session = ctx.sessions.findOwned(sid, userId);
      if (!session) return;
      if (
        session.metadataVersion !== expectedVersion ||
        !ctx.sessions.updateMetadata(sid, expectedVersion, metadata)
      ) {
        const current = ctx.sessions.findOwned(sid, userId) ?? session;
        ack?.({ result: 'version-mismatch', version: current.metadataVersion, metadata: current.metadata });
        return;
      }
      const version = expectedVersion + 1;
      ctx.events.emitUpdate(userId, updateSessionBody(sid, { metadata: { value: metadata, version } }), {
        type: 'all-interested-in-session',
        sessionId: sid,
      });
      ack?.({ result: 'success', version, metadata });
    } catch (error) {
      ctx.logger.error('update-metadata failed', { error: String(error) });
      // A full disk is named, so the SDK can say why (docs/relay.md, "A full disk").
      ack?.(isStorageFull(error) ? { result: 'error', code: STORAGE_FULL.code } : { result: 'error' });
    }
  });

  socket.on('update-state', (payload: unknown, callback: unknown) => {
    const ack = asAck(callback);
    try {
      const { sid, agentState, expectedVersion } = asRecord(payload);
      if (
        typeof sid !== 'string' ||
        !sid ||
        (typeof agentState !== 'string' && agentState !== null) ||
        typeof expectedVersion !== 'number'
      ) {
        ack?.({ result: 'error' });
        return;
      }
      const session = ctx.sessions.findOwned(sid, userId);
      if (!session) {
        // Unlike update-metadata, the real server acks an unknown session here.
        ack?.({ result: 'error' });
        return;
      }
      if (
        session.agentStateVersion !== expectedVersion ||
        !ctx.sessions.updateAgentState(sid, expectedVersion, agentState)
      ) {
        const current = ctx.sessions.findOwned(sid, userId) ?? session;
        ack?.({
          result: 'version-mismatch',
          version: current.agentStateVersion,
          agentState: current.agentState,
        });
        return;
      }
      const version = expectedVersion + 1;
      ctx.events.emitUpdate(userId, updateSessionBody(sid, { agentState: { value: agentState, version } }), {
        type: 'all-interested-in-session',
        sessionId: sid,
      });
      ack?.({ result: 'success', version, agentState });
    } catch (error) {
      ctx.logger.error('update-state failed', { error: String(error) });
      // A full disk is named, so the SDK can say why (docs/relay.md, "A full disk").
      ack?.(isStorageFull(error) ? { result: 'error', code: STORAGE_FULL.code } : { result: 'error' });
    }
  });

  socket.on('session-alive', (payload: unknown) => {
    const { sid, time, thinking } = asRecord(payload);
    if (typeof sid !== 'string' || !sid || typeof time !== 'number') return;
    const at = clampActivityTime(time);
    if (at === undefined) return;
    ctx.presence.heartbeat(userId, sid, at, thinking === true, socket.id);
  });

  socket.on('session-end', (payload: unknown) => {
    const { sid, time } = asRecord(payload);
    if (typeof sid !== 'string' || !sid || typeof time !== 'number') return;
    const at = clampActivityTime(time);
    if (at === undefined) return;
    ctx.presence.end(userId, sid, at);
  });

  socket.on('message', (payload: unknown) => {
    try {
      const { sid, message, localId } = asRecord(payload);
      if (typeof sid !== 'string' || typeof message !== 'string') return;
      if (!ctx.sessions.findOwned(sid, userId)) return;
      // This path has no ack: a record over the account's message rate is dropped, and logged.
      if (!ctx.messageRate.take(userId)) {
        ctx.logger.warn('message over the rate limit dropped', { userId, sessionId: sid });
        return;
      }
      const created = ctx.messages.appendLegacy(sid, message, typeof localId === 'string' ? localId : null);
      if (!created) return;
      // The legacy path skips the sending socket (§2.2).
      ctx.events.emitUpdate(
        userId,
        newMessageBody(sid, created),
        { type: 'all-interested-in-session', sessionId: sid },
        socket,
      );
    } catch (error) {
      ctx.logger.error('message failed', { error: String(error) });
    }
  });
}
