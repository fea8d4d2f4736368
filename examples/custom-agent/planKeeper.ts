// The agent's plan for one turn: one step per tool call (`turn.plan()`), which the app shows as a
// checklist (a TodoWrite card in today's app). A card is written only when the plan changed since
// the last one, and changes made together (the calls that start side by side, the answers "Allow
// all" gives at once) make one card, not one per call.
import type { PlanEntry, RunResult, Turn } from 'happy-session';

/** How a step's call ended: a step that did not run is never `completed`. */
type Outcome = RunResult<unknown>['status'];

/** The steps of one turn's plan, and the turn they are written to. */
export class PlanKeeper {
  private readonly entries: PlanEntry[];
  /** What the last card showed, to write only a changed plan. */
  private written = '';
  private scheduled: ReturnType<typeof setImmediate> | undefined;

  /** The plan: every step pending (written with the first change, or by {@link flush}). */
  constructor(
    private readonly turn: Turn,
    private readonly steps: readonly string[],
  ) {
    this.entries = steps.map((content) => ({ content, status: 'pending' }));
    this.schedule();
  }

  /** Marks step `index` in progress. */
  start(index: number): void {
    this.set(index, 'in_progress');
  }

  /**
   * Marks step `index` by its call's outcome: `completed` when it ran (a failure says so), back to
   * `pending` with why when it did not run (denied, or cancelled by a stop).
   */
  end(index: number, outcome: Outcome): void {
    const step = this.steps[index];
    if (step === undefined) return;
    if (outcome === 'done') this.set(index, 'completed');
    else if (outcome === 'failed') this.set(index, 'completed', `${step} (failed)`);
    else if (outcome === 'denied') this.set(index, 'pending', `${step} (not allowed, not run)`);
    else this.set(index, 'pending', `${step} (cancelled, not run)`);
  }

  /** Writes the plan now if it changed since the last card (call it before the turn ends). */
  flush(): void {
    if (this.scheduled !== undefined) clearImmediate(this.scheduled);
    this.scheduled = undefined;
    const now = JSON.stringify(this.entries);
    // The session may have closed meanwhile (SIGINT or SIGTERM ended the turn).
    if (now === this.written || this.turn.ended) return;
    this.written = now;
    this.turn.plan(this.entries);
  }

  private set(index: number, status: PlanEntry['status'], content?: string): void {
    const entry = this.entries[index];
    if (!entry) return;
    this.entries[index] = { content: content ?? entry.content, status };
    this.schedule();
  }

  /** One card for the changes of this turn of the event loop. */
  private schedule(): void {
    this.scheduled ??= setImmediate(() => this.flush());
  }
}
