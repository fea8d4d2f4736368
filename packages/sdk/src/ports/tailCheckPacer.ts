/** A check waiting its turn. */
interface Waiting {
  readonly due: number;
  readonly fire: () => void;
}

/** Default idle tail checks a second for all the feeds of one pacer. */
export const DEFAULT_IDLE_TAIL_CHECKS_PER_SECOND = 5;

/**
 * Spaces out the idle tail checks of many record feeds (docs/transport.md, "Live reading"): the
 * feeds of every session on one socket share it, so a host of a thousand idle sessions makes at
 * most `perSecond` of those reads a second, not a thousand every 30 s. A check runs at its due time
 * or, when others are ahead of it, as soon as the pace allows, earliest due first; one timer serves
 * all. The first check after a record is not paced (the feed sets its own timer for it), so a
 * stream in use keeps its bound of about one `tailCheckMs`.
 */
export class TailCheckPacer {
  /** Sorted by `due`. */
  private queue: Waiting[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = 0;
  private lastFired = -Infinity;
  private readonly spacingMs: number;

  constructor(perSecond = DEFAULT_IDLE_TAIL_CHECKS_PER_SECOND) {
    this.spacingMs = 1000 / perSecond;
  }

  /** Calls `fire` at `due` (ms since the epoch) or later, in its turn; returns the cancel. */
  schedule(due: number, fire: () => void): () => void {
    const waiting: Waiting = { due, fire };
    let at = this.queue.length;
    while (at > 0 && this.queue[at - 1]!.due > due) at -= 1;
    this.queue.splice(at, 0, waiting);
    if (at === 0) this.arm();
    return () => {
      const i = this.queue.indexOf(waiting);
      if (i < 0) return;
      this.queue.splice(i, 1);
      if (i === 0) this.arm();
    };
  }

  private arm(): void {
    const next = this.queue[0];
    if (!next) {
      clearTimeout(this.timer);
      this.timer = undefined;
      return;
    }
    const at = Math.max(next.due, this.lastFired + this.spacingMs);
    if (this.timer !== undefined && this.timerAt === at) return;
    clearTimeout(this.timer);
    this.timerAt = at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - Date.now()));
    // Tail checks alone must not keep the host process alive.
    this.timer.unref?.();
  }

  private fire(): void {
    this.timer = undefined;
    const next = this.queue[0];
    if (next && next.due <= Date.now()) {
      this.queue.shift();
      this.lastFired = Date.now();
      next.fire();
    }
    this.arm();
  }
}
