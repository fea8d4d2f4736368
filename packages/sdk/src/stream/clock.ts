/**
 * Message time for one writer: unix ms that strictly increases, even when the wall clock stalls or
 * steps back. The app orders rows by `time`, so ties or reversals would reorder them
 * (docs/wire.md §5.4).
 */
export class MonotonicClock {
  private last = -1;

  constructor(private readonly source: () => number = Date.now) {}

  /** The next message time: the wall clock, or one more than the previous time, whichever is later. */
  next(): number {
    const now = Math.floor(this.source());
    this.last = now > this.last ? now : this.last + 1;
    return this.last;
  }

  /** Makes later times exceed `time` (used when resuming a stream written earlier). */
  advancePast(time: number): void {
    if (time > this.last) this.last = time;
  }
}
