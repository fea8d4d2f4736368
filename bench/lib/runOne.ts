/**
 * Runs one benchmark file in this (child) process and writes its results as JSON:
 * `node --expose-gc --import tsx runOne.ts <bench file> <output.json>`. A benchmark that throws
 * exits non-zero, which the runner reports as crashed.
 */
import { writeFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import type { BenchResult } from '../types.js';

const [file, output] = process.argv.slice(2);
if (!file || !output) {
  process.stderr.write('usage: runOne.ts <bench file> <output.json>\n');
  process.exit(2);
}
const module = (await import(pathToFileURL(file).href)) as { default?: () => Promise<BenchResult[]> };
if (typeof module.default !== 'function') throw new Error(`${file} has no default export to run`);
const results = await module.default();
await writeFile(output, JSON.stringify(results));
// Sockets or timers a benchmark forgot must not keep the runner waiting.
process.exit(0);
