import type { SessionSocket } from './sessionSocket.js';

/**
 * `session-alive` as the CLI sends it (docs/wire.md §4.5): one on every connect, then every 2 s,
 * and one more whenever `thinking` changes. Sent volatile: a missed beat is replaced by the next.
 */
export class Heartbeat {
  private timer: ReturnType<typeof setInterval> | undefined;
  private thinkingNow = false;

  constructor(
    private readonly socket: SessionSocket,
    private readonly sessionId: string,
    private readonly intervalMs = 2000,
  ) {}

  /** Whether the agent is working; shown as the app's thinking indicator. */
  get thinking(): boolean {
    return this.thinkingNow;
  }

  /** Sets the thinking flag; a change is sent at once. */
  setThinking(thinking: boolean): void {
    if (thinking === this.thinkingNow) return;
    this.thinkingNow = thinking;
    if (this.timer) this.beat();
  }

  /** True between {@link Heartbeat.start} and {@link Heartbeat.stop}. */
  get running(): boolean {
    return this.timer !== undefined;
  }

  /** Starts beating (idempotent). */
  start(): void {
    if (this.timer) return;
    this.beat();
    this.timer = setInterval(() => this.beat(), this.intervalMs);
    // A heartbeat alone must not keep the host process alive.
    this.timer.unref?.();
  }

  /** Sends one beat now (after a reconnect, say). */
  beat(): void {
    this.socket.emit(
      'session-alive',
      { sid: this.sessionId, time: Date.now(), thinking: this.thinkingNow },
      { volatile: true },
    );
  }

  /** Stops beating. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}
