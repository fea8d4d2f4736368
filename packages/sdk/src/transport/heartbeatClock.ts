/** A heartbeat on a {@link HeartbeatClock}: when it is due, and what beating sends. */
export interface ClockedBeat {
  /** How long after its last beat the next one is due now (shorter while the agent works). */
  readonly periodMs: number;
  /** The shortest period it ever asks for; the clock ticks at the shortest of all. */
  readonly minPeriodMs: number;
  /** When it last beat (`Date.now()`). */
  readonly lastBeatAt: number;
  beat(): void;
}

/**
 * One timer for the heartbeats of every session on a socket, however many there are (docs/transport.md,
 * "One socket per account"): it ticks at the shortest period any of them asks for, and each tick
 * beats those whose period has passed since their last beat. Unref'd: heartbeats alone never keep
 * the host process alive.
 */
export class HeartbeatClock {
  private readonly beats = new Set<ClockedBeat>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private tickMs = 0;

  /** Starts clocking `beat` (its first beat is its own to send). */
  add(beat: ClockedBeat): void {
    this.beats.add(beat);
    this.retime();
  }

  /** Stops clocking `beat`. */
  remove(beat: ClockedBeat): void {
    if (this.beats.delete(beat)) this.retime();
  }

  /** Beats every clocked heartbeat now (after a reconnect). */
  beatAll(): void {
    for (const beat of this.beats) beat.beat();
  }

  private retime(): void {
    let shortest = Infinity;
    for (const beat of this.beats) shortest = Math.min(shortest, beat.minPeriodMs);
    if (shortest === this.tickMs) return;
    clearInterval(this.timer);
    this.timer = undefined;
    this.tickMs = shortest;
    if (shortest === Infinity) return;
    this.timer = setInterval(() => this.tick(), shortest);
    this.timer.unref?.();
  }

  private tick(): void {
    const now = Date.now();
    // Half a tick of slack: a beat due just after this tick goes now rather than a whole tick late.
    const slack = this.tickMs / 2;
    for (const beat of this.beats) {
      if (now - beat.lastBeatAt >= beat.periodMs - slack) beat.beat();
    }
  }
}
