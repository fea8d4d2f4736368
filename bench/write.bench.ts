/**
 * Write throughput: messages per second appended through the SDK (`connect()` → `session.writer`:
 * validated, encrypted, batched, acknowledged; ends with `await writer.flush()`), against a raw
 * client that posts the same number of pre-encrypted records in batches of 100 with bare `fetch`
 * to `POST /v3/sessions/:id/messages`, one request in flight at a time. Target: ratio >= 0.9.
 * A second baseline, `write.throughput-vs-crypto`, is the cheapest real client: the same raw posts,
 * but each batch encrypted inside the clock with `node:crypto` (no validation), the next batch's
 * encryption overlapping the request in flight: it starts once `fetch` has written the request
 * (undici's `bodySent`), since `fetch` writes only a turn of the event loop after it is called.
 * Target: ratio >= 0.95.
 *
 * The server (the embedded relay by default, or `HAPPY_SERVER_URL`) runs in another process, so
 * its cost weighs equally on both sides; each side has one session socket connected, so the
 * server fans every record out alike. Rounds alternate SDK and raw, each on a fresh session.
 *
 * Run alone: `npx tsx bench/write.bench.ts`.
 */
import { connect } from '../packages/sdk/src/session/connect.js';
import { benchServer } from './lib/server.js';
import type { BenchServer } from './lib/server.js';
import { encryptAll, encryptRawNode, sampleText, textTurn } from './lib/messages.js';
import { RawSession } from './lib/rawClient.js';
import { runIfMain } from './lib/main.js';
import { median, round } from './lib/stats.js';
import type { BenchResult } from './types.js';

/** Text messages per round (plus the turn's start and end). */
const COUNT = Number(process.env.BENCH_WRITE_COUNT ?? 5000);
const ROUNDS = Number(process.env.BENCH_WRITE_ROUNDS ?? 5);
const WARMUP_COUNT = 500;

/** Runs the write throughput benchmark. */
export default async function run(): Promise<BenchResult[]> {
  const server = await benchServer();
  try {
    await sdkRound(server, WARMUP_COUNT);
    await rawRound(server, WARMUP_COUNT);
    await rawCryptoRound(server, WARMUP_COUNT);
    const sdk: number[] = [];
    const raw: number[] = [];
    const rawCrypto: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      sdk.push(await sdkRound(server, COUNT));
      raw.push(await rawRound(server, COUNT));
      rawCrypto.push(await rawCryptoRound(server, COUNT));
    }
    const value = median(sdk);
    const baseline = median(raw);
    const withCrypto = median(rawCrypto);
    return [
      {
        name: 'write.throughput',
        value: round(value),
        baseline: round(baseline),
        ratio: round(value / baseline),
        unit: 'msg/s',
        target: 'ratio >= 0.9',
        note:
          `${COUNT + 2} messages (a turn of ${COUNT} texts of ~200 chars) per round, median of ${ROUNDS} ` +
          `alternating rounds; SDK turn.text() + flush() vs raw fetch of pre-encrypted batches of 100; ` +
          `server: ${server.label}; SDK rounds ${sdk.map(Math.round).join('/')}, raw ${raw.map(Math.round).join('/')}`,
      },
      {
        name: 'write.throughput-vs-crypto',
        value: round(value),
        baseline: round(withCrypto),
        ratio: round(value / withCrypto),
        unit: 'msg/s',
        target: 'ratio >= 0.95',
        note:
          `the same SDK rounds vs raw fetch of batches of 100 encrypted inside the clock with node:crypto ` +
          `(JSON.stringify, AES-256-GCM, Buffer base64; next batch encrypted once the request in flight is written); ` +
          `server: ${server.label}; raw+crypto rounds ${rawCrypto.map(Math.round).join('/')}`,
      },
    ];
  } finally {
    await server.close();
  }
}

/** Messages per second through the SDK, from the first append to the flush. */
async function sdkRound(server: BenchServer, count: number): Promise<number> {
  const session = await connect({
    server: server.url,
    credentials: server.credentials,
    title: 'bench write (sdk)',
  });
  try {
    await session.writer.flush();
    const { writer } = session;
    // The texts exist before the clock starts, as the raw side's messages do.
    const texts = Array.from({ length: count }, (_, i) => sampleText(i));
    const start = performance.now();
    const turn = writer.turn();
    for (let i = 0; i < count; i++) {
      await writer.ready();
      turn.text(texts[i]!);
    }
    turn.end();
    await writer.flush();
    const seconds = (performance.now() - start) / 1000;
    return (count + 2) / seconds;
  } finally {
    await session.close();
  }
}

/** Messages per second posted raw, encryption done before the clock starts. */
async function rawRound(server: BenchServer, count: number): Promise<number> {
  const session = await RawSession.create(server.url, server.token, server.credentials);
  try {
    const records = await encryptAll(textTurn(count), session.key);
    const start = performance.now();
    await session.postAll(records, 100);
    const seconds = (performance.now() - start) / 1000;
    return records.length / seconds;
  } finally {
    await session.close();
  }
}

/**
 * Messages per second of the cheapest real client: messages stamped before the clock, each batch
 * encrypted inside it with node:crypto while the previous batch's request is in flight.
 */
async function rawCryptoRound(server: BenchServer, count: number): Promise<number> {
  const session = await RawSession.create(server.url, server.token, server.credentials);
  try {
    const messages = textTurn(count);
    const start = performance.now();
    let inFlight: Promise<unknown> = Promise.resolve();
    for (let i = 0; i < messages.length; i += 100) {
      const batch = encryptRawNode(messages.slice(i, i + 100), session.key);
      await inFlight;
      const { sent, answered } = session.postTracked(batch);
      inFlight = answered;
      // fetch writes the request a turn of the event loop later: encrypting the next batch
      // before that would hold it back instead of overlapping it.
      await Promise.race([sent, answered]);
    }
    await inFlight;
    const seconds = (performance.now() - start) / 1000;
    return messages.length / seconds;
  } finally {
    await session.close();
  }
}

await runIfMain(import.meta.url, run);
