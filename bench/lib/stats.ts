/** Small statistics helpers shared by the benchmarks. */

/** The median of `values` (0 for none). */
export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/**
 * The `p`-th percentile by linear interpolation between closest ranks (p in 0..100), so p99 of
 * 300 samples is not just the maximum.
 */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (Math.min(Math.max(p, 0), 100) / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const a = sorted[low] ?? 0;
  const b = sorted[high] ?? a;
  return a + (b - a) * (rank - low);
}

/** Rounds to three decimals, enough for a table and stable in JSON. */
export function round(n: number): number {
  return Math.round(n * 1000) / 1000;
}

/** Milliseconds `fn` took. */
export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

/** Runs the garbage collector when node was started with `--expose-gc`; says whether it could. */
export function collectGarbage(): boolean {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) return false;
  // Twice: the first pass can leave objects whose finalisers free more.
  gc();
  gc();
  return true;
}

/** Bytes to mebibytes. */
export function mb(bytes: number): number {
  return bytes / (1024 * 1024);
}
