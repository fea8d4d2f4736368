import type { EventRouter } from './events.js';
import { activityEphemeral } from './events.js';
import type { SessionStore } from './store/sessions.js';

/** Heartbeats for a stopped session are ignored this long (docs/wire.md §4.5). */
const STOPPED_TTL_MS = 60_000;
/** A heartbeat is written to the database when it is this much newer than the last one written. */
const WRITE_THRESHOLD_MS = 30_000;
/** Sessions without a heartbeat for this long are swept to inactive (§4.5). */
const INACTIVE_AFTER_MS = 10 * 60_000;
const SWEEP_INTERVAL_MS = 60_000;
/** Heartbeat times older than this are dropped (§2.4). */
const MAX_HEARTBEAT_AGE_MS = 10 * 60_000;

/**
 * Clamps a client-reported time: future times become now, times older than ten minutes are
 * dropped (`undefined`), as the real server does for `session-alive` and `session-end` (§2.4).
 */
export function clampActivityTime(time: number, now = Date.now()): number | undefined {
  if (time < now - MAX_HEARTBEAT_AGE_MS) return undefined;
  return Math.min(time, now);
}

/**
 * Session liveness: heartbeats, explicit ends, the 60 s heartbeat suppression after a stop, and
 * the sweep that marks silent sessions inactive (§4.5).
 */
export class SessionPresence {
  private readonly stoppedUntil = new Map<string, number>();
  private sweepTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly sessions: SessionStore,
    private readonly events: EventRouter,
  ) {}

  /** Starts the periodic inactivity sweep. */
  start(): void {
    this.sweepTimer = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS);
    this.sweepTimer.unref();
  }

  /** Stops the sweep. */
  stop(): void {
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    this.sweepTimer = undefined;
  }

  /** Starts ignoring heartbeats of a session that was ended, archived or deleted. */
  markStopped(sessionId: string): void {
    this.stoppedUntil.set(sessionId, Date.now() + STOPPED_TTL_MS);
  }

  /** Accepts heartbeats again (a `POST /v1/sessions` with the same tag). */
  resume(sessionId: string): void {
    this.stoppedUntil.delete(sessionId);
  }

  /**
   * Handles `session-alive` of `userId` at the already clamped time `at`: records it and tells
   * the account's UIs. Ignored for a stopped or foreign session.
   */
  heartbeat(userId: string, sessionId: string, at: number, thinking: boolean): void {
    if (this.isStopped(sessionId)) return;
    const session = this.sessions.findOwned(sessionId, userId);
    if (!session) return;
    if (!session.active || Math.abs(at - session.lastActiveAt) > WRITE_THRESHOLD_MS) {
      this.sessions.setActivity(sessionId, true, at);
    }
    this.events.emitEphemeral(userId, activityEphemeral(sessionId, true, at, thinking), {
      type: 'user-scoped-only',
    });
  }

  /** Handles `session-end` at the clamped time `at`. */
  end(userId: string, sessionId: string, at: number): void {
    const session = this.sessions.findOwned(sessionId, userId);
    if (!session) return;
    this.markStopped(sessionId);
    this.sessions.setActivity(sessionId, false, at);
    this.events.emitEphemeral(userId, activityEphemeral(sessionId, false, at, false), {
      type: 'user-scoped-only',
    });
  }

  /** Marks sessions silent for ten minutes inactive and tells their UIs. */
  sweep(now = Date.now()): void {
    for (const session of this.sessions.listStale(now - INACTIVE_AFTER_MS)) {
      if (!this.sessions.deactivateIfActive(session.id)) continue;
      this.events.emitEphemeral(
        session.accountId,
        activityEphemeral(session.id, false, session.lastActiveAt, false),
        { type: 'user-scoped-only' },
      );
    }
  }

  private isStopped(sessionId: string): boolean {
    const until = this.stoppedUntil.get(sessionId);
    if (until === undefined) return false;
    if (until <= Date.now()) {
      this.stoppedUntil.delete(sessionId);
      return false;
    }
    return true;
  }
}
