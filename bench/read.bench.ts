/**
 * Reader throughput: messages per second read back through the SDK (`session.reader.read()`:
 * fetch a page, decrypt, validate, and fold each message into a `SessionFold`) against a raw loop
 * that fetches the same pages with bare `fetch` and decrypts each record with the crypto module
 * (no validation, no fold), on the same session and server. Rounds alternate. No target: it shows
 * what validation and folding cost on top of the unavoidable fetch and decryption.
 *
 * Run alone: `npx tsx bench/read.bench.ts` (`BENCH_READ_COUNT` sets the messages, default 5000).
 */
import { decryptRecord } from '../packages/sdk/src/crypto/records.js';
import { connect } from '../packages/sdk/src/session/connect.js';
import type { Session } from '../packages/sdk/src/session/session.js';
import { SessionFold } from '../packages/sdk/src/stream/fold.js';
import { runIfMain } from './lib/main.js';
import { sampleText } from './lib/messages.js';
import { benchServer } from './lib/server.js';
import type { BenchServer } from './lib/server.js';
import { median, round } from './lib/stats.js';
import type { BenchResult } from './types.js';

const COUNT = Number(process.env.BENCH_READ_COUNT ?? 5000);
const ROUNDS = 5;
/** The reader's page size, used by both sides. */
const PAGE = 500;

/** Runs the reader throughput benchmark. */
export default async function run(): Promise<BenchResult[]> {
  const server = await benchServer();
  try {
    const session = await connect({
      server: server.url,
      credentials: server.credentials,
      title: 'bench read',
    });
    try {
      const turn = session.turn();
      for (let i = 0; i < COUNT - 2; i++) {
        await session.writer.ready();
        turn.text(sampleText(i));
      }
      turn.end();
      await session.writer.flush();
      await sdkRead(session);
      await rawRead(server, session);
      const sdk: number[] = [];
      const raw: number[] = [];
      for (let i = 0; i < ROUNDS; i++) {
        sdk.push(await sdkRead(session));
        raw.push(await rawRead(server, session));
      }
      const value = median(sdk);
      const baseline = median(raw);
      return [
        {
          name: 'read.throughput',
          value: round(value),
          baseline: round(baseline),
          ratio: round(value / baseline),
          unit: 'msg/s',
          note:
            `${COUNT} messages; session.reader.read() + SessionFold.apply vs bare fetch of pages of ${PAGE} + decryptRecord; ` +
            `median of ${ROUNDS} alternating rounds; server: ${server.label}; SDK ${sdk.map(Math.round).join('/')}, raw ${raw.map(Math.round).join('/')}`,
        },
      ];
    } finally {
      await session.close();
    }
  } finally {
    await server.close();
  }
}

async function sdkRead(session: Session): Promise<number> {
  const fold = new SessionFold();
  let count = 0;
  const start = performance.now();
  for await (const event of session.reader.read()) {
    if (event.kind !== 'message') throw new Error(`record ${event.seq} did not read back`);
    fold.apply(event.message);
    count++;
  }
  const seconds = (performance.now() - start) / 1000;
  if (count < COUNT) throw new Error(`read ${count} messages, expected ${COUNT}`);
  return count / seconds;
}

async function rawRead(server: BenchServer, session: Session): Promise<number> {
  let after = 0;
  let count = 0;
  const start = performance.now();
  for (;;) {
    const response = await fetch(
      `${server.url}/v3/sessions/${encodeURIComponent(session.id)}/messages?after_seq=${after}&limit=${PAGE}`,
      { headers: { Authorization: `Bearer ${server.token}` } },
    );
    const page = (await response.json()) as {
      messages: Array<{ seq: number; content: { c: string } }>;
      hasMore: boolean;
    };
    for (const message of page.messages) {
      const decrypted = await decryptRecord(message.content.c, session.key);
      if (!decrypted.ok) throw new Error(`record ${message.seq} did not decrypt`);
      after = message.seq;
      count++;
    }
    if (!page.hasMore || page.messages.length === 0) break;
  }
  const seconds = (performance.now() - start) / 1000;
  if (count < COUNT) throw new Error(`read ${count} records, expected ${COUNT}`);
  return count / seconds;
}

await runIfMain(import.meta.url, run);
