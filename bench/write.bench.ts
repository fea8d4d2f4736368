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
 * `write.cpu-per-message` is the client's own cost: this process's CPU time (`process.cpuUsage()`,
 * user + system, every thread) over the timed part of each SDK round, per message, against the
 * same of the raw-with-crypto rounds it alternates with. The relay runs in its own process, so its
 * CPU is not in either figure, and the figure does not depend on how the client and the relay
 * share the cores. Target: ratio <= 1.3.
 *
 * The server (the embedded relay by default, or `HAPPY_SERVER_URL`) runs in another process, so
 * its cost weighs equally on both sides; each side has one session socket connected, so the
 * server fans every record out alike. Rounds alternate SDK and raw, each on a fresh session,
 * and the order of the three turns rotates from round to round, so that no side always follows
 * the same other (whose garbage the next round's collections pay for).
 * Each side first runs two whole untimed rounds of the same size (the warm-up: JIT, sockets and
 * the relay's own warm-up alike for all three), then nine timed rounds; each figure is the median.
 * With a warm-up of 500 messages the first timed SDK round still ran at 1.5 times the CPU per
 * message of the later ones, with one whole round the first two still at 1.5-1.8 times, and five
 * rounds left the medians moving by ±0.1 between runs (docs/performance.md, "Where a write
 * round's time goes (issue 28)").
 *
 * Run alone: `npx tsx bench/write.bench.ts`.
 */
import { connect } from '../packages/sdk/src/session/connect.js';
import { limitsForRecords } from './lib/relayLimits.js';
import { benchServer } from './lib/server.js';
import type { BenchServer } from './lib/server.js';
import { encryptAll, encryptRawNode, sampleText, textTurn } from './lib/messages.js';
import { RawSession } from './lib/rawClient.js';
import { runIfMain } from './lib/main.js';
import { median, round } from './lib/stats.js';
import type { BenchResult } from './types.js';

/** Text messages per round (plus the turn's start and end). */
const COUNT = Number(process.env.BENCH_WRITE_COUNT ?? 5000);
const ROUNDS = Number(process.env.BENCH_WRITE_ROUNDS ?? 9);
/** Messages of each side's untimed first rounds: whole rounds. */
const WARMUP_COUNT = COUNT;
/** Untimed rounds of each side before the timed ones. */
const WARMUP_ROUNDS = Number(process.env.BENCH_WRITE_WARMUP_ROUNDS ?? 2);

/** Runs the write throughput benchmark. */
export default async function run(): Promise<BenchResult[]> {
  // Three sides (SDK, raw, raw with crypto) of a turn of COUNT texts per round, and their warm-ups.
  const server = await benchServer({
    limits: limitsForRecords(3 * (ROUNDS * (COUNT + 2) + WARMUP_ROUNDS * (WARMUP_COUNT + 2))),
  });
  try {
    for (let i = 0; i < WARMUP_ROUNDS; i++) {
      await sdkRound(server, WARMUP_COUNT);
      await rawRound(server, WARMUP_COUNT);
      await rawCryptoRound(server, WARMUP_COUNT);
    }
    const sdk: Round[] = [];
    const raw: Round[] = [];
    const rawCrypto: Round[] = [];
    // The order of the three turns round by round, so that none always follows the same other
    // (whose garbage the next round's collections pay for, whose sockets the relay still closes).
    const sides: Array<() => Promise<void>> = [
      async () => void sdk.push(await sdkRound(server, COUNT)),
      async () => void raw.push(await rawRound(server, COUNT)),
      async () => void rawCrypto.push(await rawCryptoRound(server, COUNT)),
    ];
    for (let i = 0; i < ROUNDS; i++) {
      for (let k = 0; k < sides.length; k++) await sides[(i + k) % sides.length]!();
    }
    const value = median(sdk.map(rate));
    const baseline = median(raw.map(rate));
    const withCrypto = median(rawCrypto.map(rate));
    const sdkCpu = median(sdk.map(cpuPerMessage));
    const rawCryptoCpu = median(rawCrypto.map(cpuPerMessage));
    const rates = (rounds: readonly Round[]) => rounds.map((r) => Math.round(rate(r))).join('/');
    const cpus = (rounds: readonly Round[]) => rounds.map((r) => Math.round(cpuPerMessage(r))).join('/');
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
          `server: ${server.label}; SDK rounds ${rates(sdk)}, raw ${rates(raw)}`,
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
          `server: ${server.label}; raw+crypto rounds ${rates(rawCrypto)}`,
      },
      {
        name: 'write.cpu-per-message',
        value: round(sdkCpu),
        baseline: round(rawCryptoCpu),
        ratio: round(sdkCpu / rawCryptoCpu),
        unit: 'µs/msg',
        target: 'ratio <= 1.3',
        note:
          `this process's CPU (process.cpuUsage, user + system) over the timed part of the same SDK rounds vs the ` +
          `raw-with-crypto rounds, per message, median of ${ROUNDS}; the relay runs in another process; ` +
          `SDK ${cpus(sdk)} µs, raw+crypto ${cpus(rawCrypto)} µs`,
      },
    ];
  } finally {
    await server.close();
  }
}

/** One timed round: messages written, wall-clock ms and this process's CPU µs in that time. */
interface Round {
  readonly messages: number;
  readonly ms: number;
  readonly cpuUs: number;
}

function rate(r: Round): number {
  return r.messages / (r.ms / 1000);
}

function cpuPerMessage(r: Round): number {
  return r.cpuUs / r.messages;
}

/** Starts the clocks; the function it returns stops them. */
function clocks(): (messages: number) => Round {
  const start = performance.now();
  const cpu = process.cpuUsage();
  return (messages) => {
    const used = process.cpuUsage(cpu);
    return { messages, ms: performance.now() - start, cpuUs: used.user + used.system };
  };
}

/** Messages through the SDK, from the first append to the flush. */
async function sdkRound(server: BenchServer, count: number): Promise<Round> {
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
    const stop = clocks();
    const turn = writer.turn();
    for (let i = 0; i < count; i++) {
      await writer.ready();
      turn.text(texts[i]!);
    }
    turn.end();
    await writer.flush();
    return stop(count + 2);
  } finally {
    await session.close();
  }
}

/** Records posted raw, encryption done before the clock starts. */
async function rawRound(server: BenchServer, count: number): Promise<Round> {
  const session = await RawSession.create(server.url, server.token, server.credentials);
  try {
    const records = await encryptAll(textTurn(count), session.key);
    const stop = clocks();
    await session.postAll(records, 100);
    return stop(records.length);
  } finally {
    await session.close();
  }
}

/**
 * The cheapest real client: messages stamped before the clock, each batch encrypted inside it with
 * node:crypto while the previous batch's request is in flight.
 */
async function rawCryptoRound(server: BenchServer, count: number): Promise<Round> {
  const session = await RawSession.create(server.url, server.token, server.credentials);
  try {
    const messages = textTurn(count);
    const stop = clocks();
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
    return stop(messages.length);
  } finally {
    await session.close();
  }
}

await runIfMain(import.meta.url, run);
