/** How long a nested step's line waits for its echo in the parent's output. */
const ECHO_WINDOW_MS = 10_000;
/** Most lines awaited at once; the oldest are forgotten first. */
const MAX_EXPECTED = 20_000;

/**
 * The lines a step should not show again because a step nested in it already showed them.
 * A nested `run` writes its command's output to its own stdout as well (so pipes and redirections
 * around it keep working), and that stdout usually is the parent command's output: without this,
 * every nested line would show twice. A nested run reports a chunk and waits for the outer run's
 * answer before it echoes it, so the line is always expected before its echo arrives.
 */
export class EchoFilter {
  private readonly expected = new Map<string, number>();
  private readonly order: Array<{ line: string; at: number }> = [];

  constructor(private readonly now: () => number = Date.now) {}

  /** A nested step showed `line`: its echo in this step's output is dropped once. */
  expect(line: string): void {
    this.expire();
    this.expected.set(line, (this.expected.get(line) ?? 0) + 1);
    this.order.push({ line, at: this.now() });
    if (this.order.length > MAX_EXPECTED) this.forget(this.order.shift()!.line);
  }

  /** True (and forgotten) when `line` is an awaited echo. */
  consume(line: string): boolean {
    this.expire();
    if (!this.expected.has(line)) return false;
    this.forget(line);
    const index = this.order.findIndex((e) => e.line === line);
    if (index !== -1) this.order.splice(index, 1);
    return true;
  }

  private expire(): void {
    const limit = this.now() - ECHO_WINDOW_MS;
    while (this.order.length > 0 && this.order[0]!.at < limit) this.forget(this.order.shift()!.line);
  }

  private forget(line: string): void {
    const n = (this.expected.get(line) ?? 0) - 1;
    if (n > 0) this.expected.set(line, n);
    else this.expected.delete(line);
  }
}
