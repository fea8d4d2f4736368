import type { ClockedBeat } from './heartbeatClock.js';
import type { SessionSocket } from './sessionSocket.js';

/** Default `session-alive` period while the agent works: the CLI's 2 s (docs/wire.md §4.5). */
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 2_000;
/**
 * Default period while the agent is idle (no turn open). The server marks a session inactive after
 * 10 minutes without a beat and stores `lastActiveAt` at most every 30 s (docs/wire.md §4.5), so
 * 30 s keeps it online and what the app shows unchanged, at a fifteenth of the beats.
 */
export const DEFAULT_IDLE_HEARTBEAT_INTERVAL_MS = 30_000;

/** Periods of a {@link Heartbeat}. */
export interface HeartbeatPeriods {
  /** While thinking; default 2 s. */
  readonly intervalMs?: number;
  /** While idle; default 30 s, never shorter than `intervalMs`. */
  readonly idleIntervalMs?: number;
}

/**
 * `session-alive` (docs/wire.md §4.5): one on every connect and whenever `thinking` changes, then
 * every `intervalMs` while the agent works and every `idleIntervalMs` while it is idle. The timer is
 * the socket's one {@link HeartbeatClock}, shared by every session on it. Sent volatile: a missed
 * beat is replaced by the next.
 */
export class Heartbeat implements ClockedBeat {
  private thinkingNow = false;
  private runningNow = false;
  private readonly busyMs: number;
  private readonly idleMs: number;
  lastBeatAt = 0;

  constructor(
    private readonly socket: SessionSocket,
    private readonly sessionId: string,
    periods: HeartbeatPeriods = {},
  ) {
    this.busyMs = periods.intervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS;
    this.idleMs = Math.max(this.busyMs, periods.idleIntervalMs ?? DEFAULT_IDLE_HEARTBEAT_INTERVAL_MS);
  }

  /** Whether the agent is working; shown as the app's thinking indicator. */
  get thinking(): boolean {
    return this.thinkingNow;
  }

  get periodMs(): number {
    return this.thinkingNow ? this.busyMs : this.idleMs;
  }

  get minPeriodMs(): number {
    return this.busyMs;
  }

  /** Sets the thinking flag; a change is sent at once. */
  setThinking(thinking: boolean): void {
    if (thinking === this.thinkingNow) return;
    this.thinkingNow = thinking;
    if (this.runningNow) this.beat();
  }

  /** True between {@link Heartbeat.start} and {@link Heartbeat.stop}. */
  get running(): boolean {
    return this.runningNow;
  }

  /** Starts beating (idempotent). */
  start(): void {
    if (this.runningNow) return;
    this.runningNow = true;
    this.beat();
    this.socket.heartbeats.add(this);
  }

  /** Sends one beat now (after a reconnect, say). */
  beat(): void {
    this.lastBeatAt = Date.now();
    this.socket.emit(
      'session-alive',
      { sid: this.sessionId, time: this.lastBeatAt, thinking: this.thinkingNow },
      { volatile: true },
    );
  }

  /** Stops beating. */
  stop(): void {
    this.runningNow = false;
    this.socket.heartbeats.remove(this);
  }
}
