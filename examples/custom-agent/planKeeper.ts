// The agent's plan for one turn: one step per tool call, written whole each time a step changes
// (`turn.plan()`), so the app shows a checklist that ticks off as the calls finish.
import type { PlanEntry, Turn } from 'happy-session';

/** The steps of one turn's plan, and the turn they are written to. */
export class PlanKeeper {
  private readonly entries: PlanEntry[];

  /** Writes the plan: every step pending. */
  constructor(
    private readonly turn: Turn,
    steps: readonly string[],
  ) {
    this.entries = steps.map((content) => ({ content, status: 'pending' }));
    this.write();
  }

  /** Marks step `index` in progress. */
  start(index: number): void {
    this.set(index, 'in_progress');
  }

  /** Marks step `index` done (whatever its outcome: the call's own end says how it went). */
  done(index: number): void {
    this.set(index, 'completed');
  }

  private set(index: number, status: PlanEntry['status']): void {
    const entry = this.entries[index];
    if (!entry || entry.status === status) return;
    this.entries[index] = { ...entry, status };
    this.write();
  }

  private write(): void {
    // The session may have closed meanwhile (SIGINT or SIGTERM ended the turn).
    if (!this.turn.ended) this.turn.plan(this.entries);
  }
}
