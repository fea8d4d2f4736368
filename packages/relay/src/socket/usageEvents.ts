import type { Socket } from 'socket.io';
import type { RelayContext } from '../context.js';
import { asAck, asRecord, socketData } from './data.js';

function hasNumericTotal(value: unknown): value is Record<string, unknown> & { total: number } {
  return (
    typeof value === 'object' && value !== null && typeof (value as { total?: unknown }).total === 'number'
  );
}

/**
 * `usage-report` (docs/wire.md §9 item 3): upserted per `(account, session, key)`, answered with
 * the real server's ack shapes, and relayed to the account's UIs as a `usage` ephemeral.
 */
export function installUsageEvents(socket: Socket, ctx: RelayContext): void {
  const { userId } = socketData(socket);
  socket.on('usage-report', (payload: unknown, callback: unknown) => {
    const ack = asAck(callback);
    try {
      const { key, sessionId, tokens, cost } = asRecord(payload);
      if (typeof key !== 'string' || !key) return ack?.({ success: false, error: 'Invalid key' });
      if (!hasNumericTotal(tokens)) {
        return ack?.({ success: false, error: 'Invalid tokens object - must include total' });
      }
      if (!hasNumericTotal(cost)) {
        return ack?.({ success: false, error: 'Invalid cost object - must include total' });
      }
      if (sessionId && typeof sessionId !== 'string') {
        return ack?.({ success: false, error: 'Invalid sessionId' });
      }
      const sid = typeof sessionId === 'string' && sessionId ? sessionId : null;
      if (sid !== null && !ctx.sessions.findOwned(sid, userId)) {
        return ack?.({ success: false, error: 'Session not found' });
      }
      const report = ctx.activity.upsertUsage(userId, sid, key, { tokens, cost });
      if (sid !== null) {
        ctx.events.emitEphemeral(
          userId,
          { type: 'usage', id: sid, key, tokens, cost, timestamp: Date.now() },
          { type: 'user-scoped-only' },
        );
      }
      return ack?.({
        success: true,
        reportId: report.id,
        createdAt: report.createdAt,
        updatedAt: report.updatedAt,
      });
    } catch (error) {
      ctx.logger.error('usage-report failed', { error: String(error) });
      return ack?.({ success: false, error: 'Failed to save usage report' });
    }
  });
}
