/**
 * Growth: does the cost per message stay flat as a session grows, and does memory stay bounded?
 *
 * 1. Reader + fold time per message for the first 1k, 10k and 100k messages of a session (read
 *    through `session.reader`: fetch, decrypt, validate; folded into a `SessionFold`), as a ratio
 *    to the per-message time at 1k. Target: ratio <= 1.5 (flat).
 * 2. RSS growth of a process that appended 100k messages through the SDK (turns of 10 messages
 *    through the builders, `await writer.ready()` before each turn), after GC, against a raw
 *    producer that encrypts and posts the same number of records with bare `fetch`. Each producer
 *    runs in its own child process and the server in another, so neither's memory counts for the
 *    other. Target: growth under 50 MB, with the outbox bounded by its high-water mark.
 *
 * Run alone: `npx tsx bench/growth.bench.ts` (`BENCH_GROWTH_MESSAGES` changes the 100k).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { GrowthReport } from './lib/growthChild.js';
import { runIfMain } from './lib/main.js';
import { tsxNodeArgs } from './lib/node.js';
import { MIXED_TURN_SIZE } from './lib/messages.js';
import { limitsForRecords } from './lib/relayLimits.js';
import { benchServer } from './lib/server.js';
import type { BenchServer } from './lib/server.js';
import { mb, round } from './lib/stats.js';
import type { BenchResult } from './types.js';

const MESSAGES = Number(process.env.BENCH_GROWTH_MESSAGES ?? 100_000);
const CHILD = fileURLToPath(new URL('./lib/growthChild.ts', import.meta.url));

/** Runs the growth benchmark. */
export default async function run(): Promise<BenchResult[]> {
  // Two producers of MESSAGES records each (and the SDK's warm-up turn) on one account.
  const server = await benchServer({ limits: limitsForRecords(2 * (MESSAGES + MIXED_TURN_SIZE)) });
  try {
    const sdk = await produce(server, 'sdk');
    const raw = await produce(server, 'raw');
    const results: BenchResult[] = [];
    const first = sdk.readFoldMs['1000'];
    if (first !== undefined) {
      const perMessageAt1k = (first / 1000) * 1000;
      for (const [n, ms] of Object.entries(sdk.readFoldMs)) {
        if (n === '1000') continue;
        const perMessage = (ms / Number(n)) * 1000;
        results.push({
          name: `growth.read-fold.${Number(n) / 1000}k`,
          value: round(perMessage),
          baseline: round(perMessageAt1k),
          ratio: round(perMessage / perMessageAt1k),
          unit: 'µs/msg',
          target: 'ratio <= 1.5',
          note: `session.reader.read() + SessionFold.apply per message over the first ${n} messages vs the first 1000 (${round(first)} ms); median of 5 reads at 1k, 3 at 10k, 1 at 100k; GC ${round(gcShare(sdk, n))}% of the last read; pages of 500; server: ${server.label}`,
        });
      }
    }
    const sdkGrowth = mb(sdk.rssAfter - sdk.rssBefore);
    const rawGrowth = mb(raw.rssAfter - raw.rssBefore);
    results.push({
      name: `growth.rss.${MESSAGES / 1000}k-appended`,
      value: round(sdkGrowth),
      baseline: round(rawGrowth),
      ratio: round(sdkGrowth / rawGrowth),
      unit: 'MB',
      target: 'value <= 50',
      note:
        `RSS after GC, after minus before ${sdk.messages} SDK appends (turns of 10, await writer.ready()) vs ${raw.messages} raw fetch posts, each in its own child process; ` +
        `SDK peak ${round(mb(sdk.rssPeak - sdk.rssBefore))} MB above start${sdk.peakWasReset ? '' : ' (lifetime peak)'}, outbox at most ${sdk.maxPending} records, heap after ${round(mb(sdk.heapUsedAfter))} MB; ` +
        `SDK ${round(sdk.messages / sdk.seconds)} msg/s, raw ${round(raw.messages / raw.seconds)} msg/s`,
    });
    return results;
  } finally {
    await server.close();
  }
}

/** Share of the last read of `n` messages spent in garbage collection, in percent. */
function gcShare(report: GrowthReport, n: string): number {
  const ms = report.readFoldMs[n];
  const gc = report.readFoldGcMs[n];
  return ms && gc !== undefined ? (100 * gc) / ms : 0;
}

async function produce(server: BenchServer, mode: 'sdk' | 'raw'): Promise<GrowthReport> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    [...tsxNodeArgs(), CHILD, mode, String(MESSAGES)],
    { env: { ...process.env, ...server.childEnv }, maxBuffer: 1024 * 1024, timeout: 8 * 60_000 },
  );
  const line = stdout.trim().split('\n').at(-1) ?? '';
  return JSON.parse(line) as GrowthReport;
}

await runIfMain(import.meta.url, run);
