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
 * Session liveness: heartbeats, explicit ends, the 60 s heartbeat suppression after a stop, the
 * sweep that marks silent sessions inactive (§4.5), and, unlike the real server, the end of an
 * agent's socket: a session whose last heartbeating socket closes is inactive at once
 * (docs/relay.md, "Liveness").
 */
export class SessionPresence {
  private readonly stoppedUntil = new Map<string, number>();
  /** Per session, the sockets that sent its `session-alive`: the live agents of that session. */
  private readonly agentSockets = new Map<string, Set<string>>();
  /** Per socket, the sessions it beats for. */
  private readonly socketSessions = new Map<string, Set<string>>();
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
  heartbeat(userId: string, sessionId: string, at: number, thinking: boolean, socketId?: string): void {
    if (this.isStopped(sessionId)) return;
    const session = this.sessions.findOwned(sessionId, userId);
    if (!session) return;
    if (socketId !== undefined) this.track(sessionId, socketId);
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
    this.untrackSession(sessionId);
    this.markStopped(sessionId);
    this.sessions.setActivity(sessionId, false, at);
    this.events.emitEphemeral(userId, activityEphemeral(sessionId, false, at, false), {
      type: 'user-scoped-only',
    });
  }

  /**
   * A socket closed (a process killed with -9, a crash, a lost network that did not come back in
   * the server's ping time-out): each session it beat for that has no other live agent socket is
   * marked inactive now and its UIs are told. Not a stop: the agent's next `session-alive`, from a
   * socket that reconnected, makes it active again.
   */
  socketClosed(userId: string, socketId: string, now = Date.now()): void {
    const sessionIds = this.socketSessions.get(socketId);
    if (!sessionIds) return;
    this.socketSessions.delete(socketId);
    for (const sessionId of sessionIds) {
      const sockets = this.agentSockets.get(sessionId);
      sockets?.delete(socketId);
      if (sockets && sockets.size > 0) continue;
      this.agentSockets.delete(sessionId);
      const session = this.sessions.findOwned(sessionId, userId);
      if (!session?.active) continue;
      this.sessions.setActivity(sessionId, false, now);
      this.events.emitEphemeral(userId, activityEphemeral(sessionId, false, now, false), {
        type: 'user-scoped-only',
      });
    }
  }

  private track(sessionId: string, socketId: string): void {
    let sockets = this.agentSockets.get(sessionId);
    if (!sockets) this.agentSockets.set(sessionId, (sockets = new Set()));
    sockets.add(socketId);
    let sessionIds = this.socketSessions.get(socketId);
    if (!sessionIds) this.socketSessions.set(socketId, (sessionIds = new Set()));
    sessionIds.add(sessionId);
  }

  private untrackSession(sessionId: string): void {
    for (const socketId of this.agentSockets.get(sessionId) ?? []) {
      const sessionIds = this.socketSessions.get(socketId);
      sessionIds?.delete(sessionId);
      if (sessionIds?.size === 0) this.socketSessions.delete(socketId);
    }
    this.agentSockets.delete(sessionId);
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
