import type { Session } from 'happy-session/node';

/**
 * What docs/transport.md, "Backpressure" promises a producer that never awaits `writer.ready()`:
 * the outbox holds at most `maxQueued` records and `maxQueuedBytes` (64 MiB by default), so the
 * process grows by less than this, however many messages it writes.
 */
export const RSS_BOUND_BYTES = 128 * 1024 * 1024;

export interface ProducerReport {
  readonly stored: number;
  readonly refused: number;
  /** Deliveries that ended with anything but `stream.backpressure`. */
  readonly other: number;
  /** The highest RSS seen while producing, less the RSS before it started (after a GC). */
  readonly peakRssGrowth: number;
}

/**
 * Writes `count` text messages of ~200 characters to one turn, 1,000 at a time with a turn of the
 * event loop between (as a chatty agent streaming its output would), never awaiting
 * `writer.ready()`; then waits for every delivery to settle. Keeps counters, not the deliveries.
 */
export async function produceWithoutReady(
  session: Session,
  count: number,
  gc: () => void,
  isRefusal: (error: unknown) => boolean,
): Promise<ProducerReport> {
  gc();
  const before = process.memoryUsage().rss;
  let peak = before;
  let stored = 0;
  let refused = 0;
  let other = 0;
  const text = 'lorem ipsum dolor sit amet, '.repeat(7);
  const turn = session.turn();
  for (let i = 0; i < count; i++) {
    turn.text(`${i} ${text}`).then(
      () => void stored++,
      (error: unknown) => void (isRefusal(error) ? refused++ : other++),
    );
    if (i % 1000 === 999) {
      await new Promise((resolve) => setImmediate(resolve));
      peak = Math.max(peak, process.memoryUsage().rss);
    }
  }
  turn.end();
  while (stored + refused + other < count) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  return { stored, refused, other, peakRssGrowth: peak - before };
}
