/**
 * Streamed text: from a delta written into `turn.textStream()` to its paragraph being visible to a
 * second client (a user-scoped socket, as the Happy app, that sees the `new-message` update and
 * decrypts it), p50 over every delta, against the same paragraph appended at once with
 * `turn.text()` and seen by the same client. Target: ratio <= 1.2 at p50: the stream adds only
 * the cut at the paragraph's end.
 *
 * Each sample is one paragraph of about 200 characters written as deltas of 1 to 5 characters in
 * one burst, as a model's tokens arrive; samples alternate stream and baseline, one message in
 * flight at a time, on one session.
 *
 * Run alone: `npx tsx bench/stream.bench.ts`.
 */
import { connect } from '../packages/sdk/src/session/connect.js';
import { sampleText } from './lib/messages.js';
import { runIfMain } from './lib/main.js';
import { AppWatcher } from './lib/rawClient.js';
import { benchServer } from './lib/server.js';
import { percentile, round } from './lib/stats.js';
import type { BenchResult } from './types.js';

const SAMPLES = Number(process.env.BENCH_STREAM_SAMPLES ?? 200);
const WARMUP = 20;

/** A paragraph cut into deltas of 1 to 5 characters, the last one closing it with a blank line. */
function deltasOf(paragraph: string, seed: number): string[] {
  const text = `${paragraph}\n\n`;
  const deltas: string[] = [];
  for (let at = 0, k = seed; at < text.length; k++) {
    const size = 1 + ((k * 7) % 5);
    deltas.push(text.slice(at, at + size));
    at += size;
  }
  return deltas;
}

/** Runs the streamed-text benchmark. */
export default async function run(): Promise<BenchResult[]> {
  const server = await benchServer();
  const watcher = await AppWatcher.open(server.url, server.token);
  const session = await connect({
    server: server.url,
    credentials: server.credentials,
    title: 'bench stream',
  });
  try {
    watcher.watch(session.id, session.key);
    const turn = session.turn();
    await turn.started;
    // The idle window never fires inside a burst; a paragraph's blank line is what cuts it.
    const stream = turn.textStream();
    const streamed: number[] = [];
    const atOnce: number[] = [];
    let deltaCount = 0;
    for (let i = 0; i < SAMPLES + WARMUP; i++) {
      const paragraph = sampleText(i);
      // Streamed: the time of every delta, and when the paragraph they make is seen.
      let seen: Promise<number> | undefined;
      const subscription = session.writer.messages$.subscribe((m) => (seen ??= watcher.seen(m.id)));
      const written: number[] = [];
      for (const delta of deltasOf(paragraph, i)) {
        written.push(performance.now());
        stream.write(delta);
      }
      subscription.unsubscribe();
      if (!seen) throw new Error('the stream appended nothing at the end of a paragraph');
      const visible = await seen;
      // At once: the same text, one append.
      let seenOnce: Promise<number> | undefined;
      const once = session.writer.messages$.subscribe((m) => (seenOnce ??= watcher.seen(m.id)));
      const start = performance.now();
      turn.text(`${paragraph}\n\n`);
      once.unsubscribe();
      const visibleOnce = await seenOnce!;
      if (i >= WARMUP) {
        for (const at of written) streamed.push(visible - at);
        deltaCount += written.length;
        atOnce.push(visibleOnce - start);
      }
    }
    await stream.end();
    turn.end();
    await session.writer.flush();
    const value = percentile(streamed, 50);
    const baseline = percentile(atOnce, 50);
    return [
      {
        name: 'stream.delta-visible.p50',
        value: round(value),
        baseline: round(baseline),
        ratio: round(value / baseline),
        unit: 'ms',
        target: 'ratio <= 1.2',
        note: `${SAMPLES} paragraphs (${deltaCount} deltas of 1-5 characters, each paragraph in one burst) after ${WARMUP} warm-up, alternating with the same text appended at once; seen = the app's user-scoped socket got the new-message update and decrypted it; server: ${server.label}`,
      },
    ];
  } finally {
    await session.close();
    watcher.close();
    await server.close();
  }
}

await runIfMain(import.meta.url, run);
