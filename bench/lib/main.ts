import { pathToFileURL } from 'node:url';
import type { BenchResult } from '../types.js';

/**
 * Lets a benchmark file run on its own (`npx tsx bench/x.bench.ts`): when `moduleUrl` is the
 * script node was started with, runs the benchmark and prints its results.
 */
export async function runIfMain(moduleUrl: string, run: () => Promise<BenchResult[]>): Promise<void> {
  const entry = process.argv[1];
  if (entry === undefined || moduleUrl !== pathToFileURL(entry).href) return;
  const results = await run();
  console.table(results.map(({ note: _note, ...rest }) => rest));
  for (const result of results) console.log(`${result.name}: ${result.note ?? ''}`);
}
