/**
 * `npm run bench`: runs every `bench/*.bench.ts`, each in its own child process (so memory figures
 * are the benchmark's own and one crash does not take the others down), prints one table and
 * writes `bench/results.json` with the machine it ran on.
 *
 * Every figure is a ratio to a baseline measured in the same run on the same machine. Targets are
 * reported (pass/fail), not asserted: the exit code is 0 even when a target is missed, and
 * non-zero only when a benchmark crashed.
 *
 * `npm run bench -- write latency` runs only the files whose name contains one of the words;
 * `npm run bench -- --markdown` prints the last `results.json` as a Markdown table.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tsxNodeArgs } from './lib/node.js';
import { markdownTable, textTable, verdict } from './lib/report.js';
import type { BenchReport, Crash, ReportedResult } from './lib/report.js';
import type { BenchResult } from './types.js';

const BENCH_DIR = fileURLToPath(new URL('.', import.meta.url));
const RUN_ONE = join(BENCH_DIR, 'lib', 'runOne.ts');
const RESULTS = join(BENCH_DIR, 'results.json');
/**
 * Longest a single benchmark file may take before it counts as crashed: the install benchmark's
 * `npm ci` builds better-sqlite3 from source where its prebuilt binary cannot be fetched, minutes
 * on two cores.
 */
const TIMEOUT_MS = 25 * 60_000;

async function main(args: string[]): Promise<number> {
  if (args.includes('--markdown')) {
    const report = JSON.parse(await readFile(RESULTS, 'utf8')) as BenchReport;
    console.log(markdownTable(report.results));
    return 0;
  }
  const filters = args.filter((a) => !a.startsWith('--'));
  const files = (await readdir(BENCH_DIR))
    .filter((f) => f.endsWith('.bench.ts'))
    .filter((f) => filters.length === 0 || filters.some((word) => f.includes(word)))
    .sort();
  const started = performance.now();
  const loadAverage = loadavg();
  const results: ReportedResult[] = [];
  const crashed: Crash[] = [];
  const scratch = await mkdtemp(join(tmpdir(), 'happy-bench-run-'));
  try {
    for (const file of files) {
      const fileStart = performance.now();
      console.error(`running ${file} ...`);
      try {
        for (const result of await runFile(file, scratch)) {
          results.push({ ...result, file, verdict: verdict(result) });
        }
        console.error(`  done in ${seconds(fileStart)} s`);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        crashed.push({ file, error: message });
        console.error(`  CRASHED after ${seconds(fileStart)} s: ${message}`);
      }
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }

  const report: BenchReport = {
    date: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      totalMemoryMB: Math.round(totalmem() / 1024 / 1024),
      node: process.version,
      platform: process.platform,
      arch: process.arch,
      loadAverage: loadAverage.map((l) => Math.round(l * 100) / 100),
    },
    server: process.env.HAPPY_SERVER_URL ?? 'embedded relay (child process)',
    seconds: Number(seconds(started)),
    results,
    crashed,
  };
  await writeFile(RESULTS, `${JSON.stringify(report, null, 2)}\n`);

  console.log(textTable(results));
  for (const crash of crashed) console.log(`CRASHED ${crash.file}: ${crash.error}`);
  const m = report.machine;
  console.log(
    `\n${results.length} figures, ${results.filter((r) => r.verdict === 'fail').length} targets missed, ${crashed.length} crashed; ` +
      `${m.cpus} × ${m.cpuModel}, node ${m.node}, load average ${m.loadAverage.join(' ')} at start; ${report.seconds} s; written to bench/results.json`,
  );
  return crashed.length > 0 ? 1 : 0;
}

/** Runs one benchmark file in a child process and returns its results. */
async function runFile(file: string, scratch: string): Promise<BenchResult[]> {
  const output = join(scratch, `${file}.json`);
  await new Promise<void>((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [...tsxNodeArgs(), RUN_ONE, join(BENCH_DIR, file), output],
      { timeout: TIMEOUT_MS, maxBuffer: 16 * 1024 * 1024 },
      (error, _stdout, stderr) => {
        if (error)
          reject(new Error(`${error.message.split('\n')[0]}${stderr ? `\n${lastLines(stderr)}` : ''}`));
        else resolve();
      },
    );
    child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  });
  return JSON.parse(await readFile(output, 'utf8')) as BenchResult[];
}

function lastLines(text: string, n = 8): string {
  return text.trim().split('\n').slice(-n).join('\n');
}

function seconds(since: number): string {
  return ((performance.now() - since) / 1000).toFixed(1);
}

process.exitCode = await main(process.argv.slice(2));
