/**
 * Latency: from `turn.text()` to the message being visible to a second client (a user-scoped
 * socket, as the Happy app, that sees the `new-message` update and decrypts it), p50 and p99,
 * against the raw equivalent: one pre-encrypted record posted with bare `fetch`, seen and
 * decrypted by the same second client. Targets: ratio <= 1.5 at p50, <= 2 at p99.
 *
 * Samples alternate SDK and raw, one message in flight at a time, on one session each.
 *
 * Run alone: `npx tsx bench/latency.bench.ts`.
 */
import { newId } from '../packages/sdk/src/protocol/ids.js';
import { connect } from '../packages/sdk/src/session/connect.js';
import { encryptAll, sampleText, textMessages } from './lib/messages.js';
import { runIfMain } from './lib/main.js';
import { AppWatcher, RawSession } from './lib/rawClient.js';
import { benchServer } from './lib/server.js';
import { percentile, round } from './lib/stats.js';
import type { BenchResult } from './types.js';

const SAMPLES = Number(process.env.BENCH_LATENCY_SAMPLES ?? 300);
const WARMUP = 30;

/** Runs the latency benchmark. */
export default async function run(): Promise<BenchResult[]> {
  const server = await benchServer();
  const watcher = await AppWatcher.open(server.url, server.token);
  const session = await connect({
    server: server.url,
    credentials: server.credentials,
    title: 'bench latency',
  });
  const raw = await RawSession.create(server.url, server.token, server.credentials);
  try {
    watcher.watch(session.id, session.key);
    watcher.watch(raw.id, raw.key);
    const turn = session.turn();
    await turn.started;
    const rawTurn = newId();
    // Encrypted before any clock starts: the raw side pays only for the POST and the fan-out.
    const rawRecords = await encryptAll(textMessages(rawTurn, SAMPLES + WARMUP), raw.key);

    const sdkTimes: number[] = [];
    const rawTimes: number[] = [];
    for (let i = 0; i < SAMPLES + WARMUP; i++) {
      const sdk = await sdkSample(() => turn.text(sampleText(i)), session.writer.messages$, watcher);
      const record = rawRecords[i]!;
      const seen = watcher.seen(record.localId);
      const start = performance.now();
      await raw.post([record]);
      const rawTime = (await seen) - start;
      if (i >= WARMUP) {
        sdkTimes.push(sdk);
        rawTimes.push(rawTime);
      }
    }
    turn.end();
    await session.writer.flush();
    const note = `${SAMPLES} alternating samples after ${WARMUP} warm-up, one message in flight; seen = the app's user-scoped socket got the new-message update and decrypted it; server: ${server.label}`;
    return [
      figure('latency.visible.p50', 50, sdkTimes, rawTimes, 'ratio <= 1.5', note),
      figure('latency.visible.p99', 99, sdkTimes, rawTimes, 'ratio <= 2', note),
    ];
  } finally {
    await session.close();
    await raw.close();
    watcher.close();
    await server.close();
  }
}

/** Milliseconds from calling `write` to the watcher decrypting the message it appended. */
async function sdkSample(
  write: () => unknown,
  messages$: { subscribe(next: (m: { id: string }) => void): { unsubscribe(): void } },
  watcher: AppWatcher,
): Promise<number> {
  let seen: Promise<number> | undefined;
  // messages$ emits synchronously inside the append, before anything reaches the network.
  const subscription = messages$.subscribe((m) => (seen ??= watcher.seen(m.id)));
  const start = performance.now();
  write();
  subscription.unsubscribe();
  if (!seen) throw new Error('the writer appended nothing');
  return (await seen) - start;
}

function figure(
  name: string,
  p: number,
  sdk: number[],
  raw: number[],
  target: string,
  note: string,
): BenchResult {
  const value = percentile(sdk, p);
  const baseline = percentile(raw, p);
  return {
    name,
    value: round(value),
    baseline: round(baseline),
    ratio: round(value / baseline),
    unit: 'ms',
    target,
    note,
  };
}

await runIfMain(import.meta.url, run);
