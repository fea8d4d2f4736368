import type { RelayLimits } from '../../packages/relay/src/index.js';

/**
 * The relay limits of a benchmark that writes `records` records to its one account.
 *
 * The relay's per-account message rate (docs/relay.md, "Limits": a bucket of 120,000 records a
 * minute) is there to stop a runaway client on a shared relay. A benchmark's relay is its own,
 * started for one file and one account, and a benchmark writes as fast as it can: the growth
 * benchmark alone posts 200,000 records (two producers of 100,000) in a couple of minutes, which
 * the default bucket refuses with `429 Too many messages` halfway through the raw producer. So the
 * bucket is sized to hold everything the benchmark writes, twice over, and never decides a
 * figure. The defaults themselves stay as they are; `HAPPY_SERVER_URL` runs keep that server's own
 * limits (smaller sizes through the `BENCH_*` variables, docs/performance.md).
 */
export function limitsForRecords(records: number): RelayLimits {
  return { messagesPerMinute: Math.max(DEFAULT_MESSAGES_PER_MINUTE, 2 * Math.ceil(records)) };
}

/** The relay's default (`resolveLimits`), below which a benchmark never goes. */
const DEFAULT_MESSAGES_PER_MINUTE = 120_000;
