/**
 * Bounded memory under a slow server (issue 26): a producer that never awaits `writer.ready()`
 * writes 100,000 messages through `connect()` to the relay behind a fault proxy that holds every
 * append's answer (a server slow to acknowledge). RSS stays under the bound docs/transport.md,
 * "Backpressure" gives, and every message ends stored or with `stream.backpressure`.
 * bench/backpressure.bench.ts runs the same producer with 1,000,000 messages.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { isSdkError } from 'happy-session';
import { connect } from 'happy-session/node';
import { FaultProxy } from '../helpers/faultProxy.js';
import { relayWithAccount } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';
import { produceWithoutReady, RSS_BOUND_BYTES } from '../helpers/slowServerProducer.js';

let account: RelayAccount;
let proxy: FaultProxy;

beforeAll(async () => {
  account = await relayWithAccount();
  proxy = await new FaultProxy(account.relay.url, (r) =>
    r.method === 'POST' && r.url.includes('/messages')
      ? { kind: 'forward', delayMs: 50 }
      : { kind: 'forward' },
  ).start();
});
afterAll(async () => {
  await proxy.close();
  await account.relay.close();
});

it('100,000 messages without ready() against a slow server: RSS stays under the bound; each one ends stored or refused with stream.backpressure', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const session = await connect({
    server: proxy.url,
    credentials: account.credentials,
    archiveOnClose: false,
    shutdownSignals: false,
    permissions: false,
  });
  try {
    const report = await produceWithoutReady(session, 100_000, gc, (e) =>
      isSdkError(e, 'stream.backpressure'),
    );
    process.stdout.write(
      `bounded memory: ${report.stored} stored, ${report.refused} refused, peak RSS growth ${Math.round(report.peakRssGrowth / 2 ** 20)} MiB (bound ${RSS_BOUND_BYTES / 2 ** 20} MiB)\n`,
    );
    expect(report.stored + report.refused).toBe(100_000);
    expect(report.other).toBe(0);
    expect(report.stored).toBeGreaterThan(0);
    expect(report.refused).toBeGreaterThan(0);
    expect(
      report.peakRssGrowth,
      `peak RSS growth ${Math.round(report.peakRssGrowth / 2 ** 20)} MiB`,
    ).toBeLessThan(RSS_BOUND_BYTES);
  } finally {
    await session.close({ deadlineMs: 60_000 }).catch(() => undefined);
  }
}, 300_000);
