/**
 * An answer held against the item it answers: the decision it makes, or why it is no answer to it.
 */
export type Ruling<D, R> = { readonly decision: D } | { readonly refusal: R };

/** What {@link Arbiter.decide} made of one answer. */
export type Verdict<I, D, R> =
  /** This answer is the first valid one: the item is decided by it, and closed to every other. */
  | { readonly status: 'decided'; readonly item: I; readonly decision: D }
  /** The item was decided before: the answer changes nothing. */
  | { readonly status: 'already_decided'; readonly decision: D; readonly at: number }
  /** No valid answer to the item, which stays open. */
  | { readonly status: 'refused'; readonly refusal: R }
  /** No such item, or one decided so long ago that it was forgotten. */
  | { readonly status: 'unknown' };

/** How many decided items an arbiter remembers by default; older ones are forgotten. */
export const MAX_DECIDED = 10_000;

/**
 * The one place where a pending item (a permission request, a question) is decided: the first
 * valid answer wins, whatever channel brought it, and nothing decides an item twice
 * (docs/architecture.md, "One arbiter"). Everything else the rooms around it do is carried out
 * from the value {@link Arbiter.decide} returns.
 *
 * It holds no promise, timer or stream: it is a fold. The same calls rebuild it from the records a
 * stream holds after a restart (each record is an `ask` or a `decide`) and keep it live afterwards,
 * so live and rebuilt decisions are one code path. `judge` says whether an answer is valid for an
 * item; it runs inside `decide`, so judging and deciding are one step, never interleaved with
 * another answer. Memory is bounded: the last `maxDecided` decided items are remembered.
 */
export class Arbiter<I, A, D, R> {
  readonly #open = new Map<string, I>();
  readonly #decided = new Map<string, { decision: D; at: number }>();

  constructor(
    private readonly judge: (item: I, answer: A) => Ruling<D, R>,
    private readonly options: { readonly maxDecided?: number; readonly now?: () => number } = {},
  ) {}

  /**
   * Opens `id` for answers. An item asked again (a request raised once more for the same call)
   * replaces what was kept of the earlier one, open or decided.
   */
  ask(id: string, item: I): void {
    this.#decided.delete(id);
    this.#open.delete(id);
    this.#open.set(id, item);
  }

  /**
   * Holds `answer` against the open item `id`: the first answer `judge` accepts decides it, at
   * once and for good. Returns what became of the answer; nothing else is done here.
   */
  decide(id: string, answer: A): Verdict<I, D, R> {
    const item = this.#open.get(id);
    if (item === undefined) {
      const kept = this.#decided.get(id);
      return kept ? { status: 'already_decided', ...kept } : { status: 'unknown' };
    }
    const ruling = this.judge(item, answer);
    if ('refusal' in ruling) return { status: 'refused', refusal: ruling.refusal };
    this.#open.delete(id);
    this.keep(id, ruling.decision);
    return { status: 'decided', item, decision: ruling.decision };
  }

  /**
   * Replaces what is kept of a decided item: its record's id once appended, or a cancellation when
   * the decision could not be recorded (the holder fails closed). No effect on an open item.
   */
  amend(id: string, decision: D): void {
    const kept = this.#decided.get(id);
    if (kept) this.#decided.set(id, { decision, at: kept.at });
  }

  /** `undefined` once `id` is decided: a late answer finds only {@link Arbiter.decided}. */
  open(id: string): I | undefined {
    return this.#open.get(id);
  }

  /** What is kept of the decided item `id`, if it is remembered. */
  decided(id: string): { readonly decision: D; readonly at: number } | undefined {
    return this.#decided.get(id);
  }

  /** The open items, in the order they were asked. */
  pending(): I[] {
    return [...this.#open.values()];
  }

  /** Ids of the open items, in the order they were asked. */
  pendingIds(): string[] {
    return [...this.#open.keys()];
  }

  private keep(id: string, decision: D): void {
    this.#decided.delete(id);
    this.#decided.set(id, { decision, at: (this.options.now ?? Date.now)() });
    const max = this.options.maxDecided ?? MAX_DECIDED;
    while (this.#decided.size > max) {
      const oldest = this.#decided.keys().next().value;
      if (oldest === undefined) break;
      this.#decided.delete(oldest);
    }
  }
}
