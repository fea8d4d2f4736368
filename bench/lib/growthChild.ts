/**
 * One producer of the growth benchmark, in its own process so that its RSS is its own:
 * `node --expose-gc --import tsx growthChild.ts <sdk|raw> <messages>`, pointed at the server by
 * `HAPPY_SERVER_URL` and `HAPPY_HOME_DIR`. Prints one JSON line ({@link GrowthReport}).
 *
 * - `sdk`: `connect()`, then turns of {@link MIXED_TURN_SIZE} messages through the builders with
 *   `await writer.ready()` before each turn (backpressure, as a real producer), then `flush()`;
 *   then reads the session back through `session.reader` into a `SessionFold`, timing the first
 *   1k, 10k and 100k messages.
 * - `raw`: the same number of text records, encrypted and posted 100 at a time with bare `fetch`.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { SessionFold } from '../../packages/sdk/src/stream/fold.js';
import type { SessionReader } from '../../packages/sdk/src/stream/sessionReader.js';
import { loadCredentials } from '../../packages/sdk/src/transport/credentials.js';
import { connect } from '../../packages/sdk/src/session/connect.js';
import { mintToken } from '../../packages/sdk/src/transport/authToken.js';
import { resolveHappyHome } from '../../packages/sdk/src/transport/happyHome.js';
import { HappyHttp } from '../../packages/sdk/src/transport/httpClient.js';
import { newId } from '../../packages/sdk/src/protocol/ids.js';
import { encryptAll, MIXED_TURN_SIZE, textMessages, writeMixedTurn } from './messages.js';
import { peakRss, resetPeakRss } from './memory.js';
import { RawSession } from './rawClient.js';
import { collectGarbage, median } from './stats.js';

/** What a producer child reports. */
export interface GrowthReport {
  readonly mode: 'sdk' | 'raw';
  readonly messages: number;
  /** RSS after warm-up and GC, before the run. */
  readonly rssBefore: number;
  /** RSS after the run and GC. */
  readonly rssAfter: number;
  /** Peak RSS during the run (VmHWM reset after warm-up where Linux allows). */
  readonly rssPeak: number;
  readonly peakWasReset: boolean;
  readonly heapUsedAfter: number;
  /** Largest number of records the outbox held (sdk). */
  readonly maxPending: number;
  readonly seconds: number;
  /** Milliseconds to read and fold the first N messages, by N (sdk). */
  readonly readFoldMs: Readonly<Record<string, number>>;
  /** Milliseconds of garbage collection during the last read of N, by N (sdk). */
  readonly readFoldGcMs: Readonly<Record<string, number>>;
}

let gcMs = 0;
new PerformanceObserver((list) => {
  for (const entry of list.getEntries()) gcMs += entry.duration;
}).observe({ entryTypes: ['gc'] });

const READ_POINTS = [1_000, 10_000, 100_000];

async function sdk(messages: number): Promise<GrowthReport> {
  const session = await connect({ title: 'bench growth (sdk)' });
  try {
    const { writer } = session;
    writeMixedTurn(writer, 0);
    await writer.flush();
    const turns = Math.ceil(messages / MIXED_TURN_SIZE) - 1;
    const before = await settle();
    const start = performance.now();
    let maxPending = 0;
    for (let t = 1; t <= turns; t++) {
      await writer.ready();
      writeMixedTurn(writer, t);
      if (writer.pending > maxPending) maxPending = writer.pending;
    }
    await writer.flush();
    const seconds = (performance.now() - start) / 1000;
    const rssPeak = await peakRss();
    const after = await settle(false);

    const readFoldMs: Record<string, number> = {};
    const readFoldGcMs: Record<string, number> = {};
    await readAndFold(session.reader, READ_POINTS[0]!); // warm-up
    for (const n of READ_POINTS.filter((p) => p <= messages)) {
      // Small reads are repeated: one slow page round trip would otherwise decide the 1k figure.
      const repeats = n <= 1_000 ? 5 : n <= 10_000 ? 3 : 1;
      const times: number[] = [];
      for (let r = 0; r < repeats; r++) {
        const gcBefore = gcMs;
        times.push(await readAndFold(session.reader, n));
        readFoldGcMs[n] = gcMs - gcBefore;
      }
      readFoldMs[n] = median(times);
    }
    return {
      mode: 'sdk',
      messages: (turns + 1) * MIXED_TURN_SIZE,
      rssBefore: before.rss,
      rssAfter: after.rss,
      rssPeak,
      peakWasReset: before.peakWasReset,
      heapUsedAfter: after.heapUsed,
      maxPending,
      seconds,
      readFoldMs,
      readFoldGcMs,
    };
  } finally {
    await session.close();
  }
}

/** Milliseconds to read the first `n` messages (decrypt, validate) and fold them into a tree. */
async function readAndFold(reader: SessionReader, n: number): Promise<number> {
  const fold = new SessionFold();
  let count = 0;
  const start = performance.now();
  for await (const event of reader.read()) {
    if (event.kind !== 'message') {
      throw new Error(
        `record ${event.seq} did not read back: ${event.kind === 'error' ? event.code : event.reason}`,
      );
    }
    fold.apply(event.message);
    if (++count >= n) break;
  }
  const ms = performance.now() - start;
  if (count < n) throw new Error(`read ${count} messages, expected ${n}`);
  if (fold.timeline.length === 0) throw new Error('the fold is empty');
  return ms;
}

async function raw(messages: number): Promise<GrowthReport> {
  const url = process.env.HAPPY_SERVER_URL;
  if (!url) throw new Error('HAPPY_SERVER_URL is not set');
  const credentials = loadCredentials({ homeDir: resolveHappyHome(process.env) });
  const token =
    credentials.token ??
    (credentials.kind === 'dataKey'
      ? ''
      : await mintToken(new HappyHttp({ serverUrl: url }), credentials.masterSecret));
  const session = await RawSession.create(url, token, credentials);
  try {
    const turn = newId();
    await session.postAll(await encryptAll(textMessages(turn, 100), session.key));
    const before = await settle();
    const start = performance.now();
    for (let sent = 100; sent < messages; sent += 100) {
      await session.post(await encryptAll(textMessages(turn, 100, sent), session.key));
    }
    const seconds = (performance.now() - start) / 1000;
    const rssPeak = await peakRss();
    const after = await settle(false);
    return {
      mode: 'raw',
      messages,
      rssBefore: before.rss,
      rssAfter: after.rss,
      rssPeak,
      peakWasReset: before.peakWasReset,
      heapUsedAfter: after.heapUsed,
      maxPending: 0,
      seconds,
      readFoldMs: {},
      readFoldGcMs: {},
    };
  } finally {
    await session.close();
  }
}

/** GC, a pause for sockets and timers to quiet down, GC again; then the memory figures. */
async function settle(resetPeak = true): Promise<{ rss: number; heapUsed: number; peakWasReset: boolean }> {
  collectGarbage();
  await new Promise((resolve) => setTimeout(resolve, 200));
  collectGarbage();
  const { rss, heapUsed } = process.memoryUsage();
  const peakWasReset = resetPeak ? await resetPeakRss() : false;
  return { rss, heapUsed, peakWasReset };
}

const [mode, count] = process.argv.slice(2);
const messages = Number(count ?? 100_000);
const report = mode === 'raw' ? await raw(messages) : await sdk(messages);
process.stdout.write(`${JSON.stringify(report)}\n`);
