/**
 * Backpressure: the RSS a producer that never awaits `writer.ready()` adds while it writes
 * 1,000,000 text messages through `connect()` to a server that acknowledges slowly (the relay in
 * its own process, behind test/helpers/faultProxy.ts holding every append's answer 50 ms), against
 * the same producer writing 100,000 in the same run. Past the outbox's bound (docs/transport.md,
 * "Backpressure") messages are refused with `stream.backpressure`, so memory does not grow with
 * the count. Targets: ratio <= 1.5, and value under the documented bound (`RSS_BOUND_BYTES`).
 * Every message must end stored or refused; the run fails otherwise.
 *
 * Run alone: `npx tsx bench/backpressure.bench.ts` (`BENCH_BACKPRESSURE_MESSAGES` changes the 1M).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { isSdkError } from '../packages/sdk/src/errors.js';
import { connect } from '../packages/sdk/src/session/connect.js';
import { FaultProxy } from '../test/helpers/faultProxy.js';
import { RSS_BOUND_BYTES, produceWithoutReady } from '../test/helpers/slowServerProducer.js';
import type { ProducerReport } from '../test/helpers/slowServerProducer.js';
import { runIfMain } from './lib/main.js';
import { benchServer } from './lib/server.js';
import { mb, round } from './lib/stats.js';
import type { BenchResult } from './types.js';

const MESSAGES = Number(process.env.BENCH_BACKPRESSURE_MESSAGES ?? 1_000_000);
const BASELINE = Math.max(1, Math.round(MESSAGES / 10));

/** Runs the backpressure benchmark. */
export default async function run(): Promise<BenchResult[]> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const server = await benchServer();
  const proxy = await new FaultProxy(server.url, (r) =>
    r.method === 'POST' && r.url.includes('/messages')
      ? { kind: 'forward', delayMs: 50 }
      : { kind: 'forward' },
  ).start();
  try {
    const produce = async (count: number): Promise<ProducerReport> => {
      const session = await connect({
        server: proxy.url,
        credentials: server.credentials,
        archiveOnClose: false,
        shutdownSignals: false,
        permissions: false,
      });
      try {
        const report = await produceWithoutReady(session, count, gc, (e) =>
          isSdkError(e, 'stream.backpressure'),
        );
        if (report.stored + report.refused !== count || report.other > 0)
          throw new Error(
            `${count} messages: ${report.stored} stored, ${report.refused} refused, ${report.other} other`,
          );
        return report;
      } finally {
        await session.close({ deadlineMs: 60_000 }).catch(() => undefined);
      }
    };
    const baseline = await produce(BASELINE);
    const value = await produce(MESSAGES);
    return [
      {
        name: `backpressure.rss.${MESSAGES / 1000}k-without-ready`,
        value: round(mb(value.peakRssGrowth)),
        baseline: round(mb(baseline.peakRssGrowth)),
        ratio: round(value.peakRssGrowth / baseline.peakRssGrowth),
        unit: 'MB',
        target: `ratio <= 1.5, value < ${round(mb(RSS_BOUND_BYTES))}`,
        note:
          `peak RSS growth while writing ${MESSAGES} texts of ~200 chars without ready() (1,000 per turn of the ` +
          `event loop) vs ${BASELINE}; answers held 50 ms by the fault proxy; ${value.stored} stored, ` +
          `${value.refused} refused with stream.backpressure (baseline: ${baseline.stored} / ${baseline.refused}); ` +
          `server: ${server.label}`,
      },
    ];
  } finally {
    await proxy.close();
    await server.close();
  }
}

await runIfMain(import.meta.url, run);
