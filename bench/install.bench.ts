/**
 * What a new user pays before writing a line: the fresh install of a clone, the local packs, the
 * packed SDK installed into an empty project, and how long each entry takes to import in a fresh
 * process.
 *
 * - `install.ci.s`: seconds of `npm ci` of the workspace (its manifests and lock copied to a temp
 *   folder, npm's local cache, `--prefer-offline`), against copying the tree it installed
 *   (`cp -a node_modules`) in the same run: what npm spends beyond writing the files (resolving,
 *   extracting, install scripts).
 * - `install.pack-local.s`: seconds of `pack:local --force` (build and pack all three packages)
 *   into a fresh folder, against `npm pack --ignore-scripts` of the three built packages (packing
 *   without building) in the same run.
 * - `install.pack-local.unchanged.s`: a second `pack:local` with nothing changed, against the
 *   first: it builds nothing (target ratio <= 0.1).
 * - `install.packages`: production packages of that install, against the goal of 40 (a goal, not
 *   a measurement: the baseline column holds it so the table reads the same way).
 * - `install.disk`: megabytes under node_modules, against a fresh install of zod alone in the same
 *   run (the one library the SDK cannot do without).
 * - `import.<entry>.ms` / `.rss`: median time of `await import(entry)` in a fresh Node process,
 *   and the process's RSS afterwards, against `await import('zod')` measured the same way,
 *   interleaved. Goal for `happy-session/node`: ≤ 100 ms on a quiet machine.
 *
 * Run alone: `npx tsx bench/install.bench.ts` (`BENCH_IMPORT_RUNS` sets the runs per entry).
 */
import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { diskBytes, installedPackages } from '../scripts/installedTree.js';
import { packLocal } from '../scripts/packLocal.js';
import { runIfMain } from './lib/main.js';
import { median, round, timed } from './lib/stats.js';
import type { BenchResult } from './types.js';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const RUNS = Number(process.env.BENCH_IMPORT_RUNS ?? 11);
const ENTRIES = [
  'happy-session',
  'happy-session/node',
  'happy-session/permissions',
  'happy-session/media',
  'happy-session/crypto',
  'happy-session/v1',
  'happy-session/internal',
];
const PROBE = `const t = performance.now(); await import(process.argv[1]); const ms = performance.now() - t; console.log(JSON.stringify({ ms, rss: process.memoryUsage().rss }));`;

async function npm(args: string[], cwd: string): Promise<string> {
  return (await run('npm', args, { cwd, maxBuffer: 64 * 1024 * 1024 })).stdout;
}

async function freshProject(dir: string, specs: string[]): Promise<string> {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'bench-install', private: true, type: 'module' }),
  );
  await npm(['install', '--prefer-offline', '--no-audit', '--no-fund', '--omit=dev', ...specs], dir);
  return dir;
}

async function importOnce(project: string, spec: string): Promise<{ ms: number; rss: number }> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', PROBE, spec], {
    cwd: project,
  });
  return JSON.parse(stdout) as { ms: number; rss: number };
}

/** What `npm ci` of a clone reads: the manifests, the lock, and the folder the overrides name. */
const CI_INPUTS = [
  'package.json',
  'package-lock.json',
  'packages/sdk/package.json',
  'packages/relay/package.json',
  'packages/cli/package.json',
  'scripts/claude-code/no-binary',
];

/** `npm ci` of the workspace in a temp copy, then a plain copy of the tree it made, in seconds. */
async function freshInstall(work: string): Promise<BenchResult> {
  const clone = join(work, 'clone');
  for (const input of CI_INPUTS) cpSync(join(ROOT, input), join(clone, input), { recursive: true });
  const ci = await timed(() => npm(['ci', '--prefer-offline', '--no-audit', '--no-fund'], clone));
  const copy = await timed(() =>
    run('cp', ['-a', join(clone, 'node_modules'), join(work, 'copied-node_modules')]),
  );
  return {
    name: 'install.ci.s',
    value: round(ci / 1000),
    baseline: round(copy / 1000),
    ratio: round(ci / copy),
    unit: 's',
    note: 'npm ci of the workspace (local cache, --prefer-offline), vs cp -a of the node_modules it made',
  };
}

/** `pack:local` cold (all built) and again unchanged, against packing the built packages alone. */
async function localPacks(work: string): Promise<{ results: BenchResult[]; sdkTarball: string }> {
  const folder = join(work, 'packs');
  const cold = await timed(() => packLocal(folder, { force: true }));
  let kept: Awaited<ReturnType<typeof packLocal>> | undefined;
  const unchanged = await timed(async () => (kept = await packLocal(folder)));
  if (kept!.rebuilt.length > 0)
    throw new Error(`pack:local rebuilt ${kept!.rebuilt.join(', ')} with nothing changed`);
  const bare = join(work, 'bare-packs');
  mkdirSync(bare);
  const packOnly = await timed(async () => {
    for (const part of ['sdk', 'relay', 'cli'])
      await npm(['pack', '--ignore-scripts', '--pack-destination', bare], join(ROOT, 'packages', part));
  });
  return {
    sdkTarball: kept!.tarballs.sdk,
    results: [
      {
        name: 'install.pack-local.s',
        value: round(cold / 1000),
        baseline: round(packOnly / 1000),
        ratio: round(cold / packOnly),
        unit: 's',
        note: 'pack:local --force (build and pack the SDK, the relay and the CLI), vs npm pack --ignore-scripts of the three (no build)',
      },
      {
        name: 'install.pack-local.unchanged.s',
        value: round(unchanged / 1000),
        baseline: round(cold / 1000),
        ratio: round(unchanged / cold),
        unit: 's',
        target: 'ratio <= 0.1',
        note: 'a second pack:local with nothing changed (builds nothing), vs the cold one',
      },
    ],
  };
}

/** Runs the install and cold-import benchmark. */
export default async function runBench(): Promise<BenchResult[]> {
  const work = mkdtempSync(join(tmpdir(), 'happy-bench-install-'));
  try {
    const ci = await freshInstall(work);
    const packs = await localPacks(work);
    const tarball = packs.sdkTarball;
    const project = await freshProject(join(work, 'sdk'), [tarball]);
    const zodOnly = await freshProject(join(work, 'zod'), ['zod']);
    const packages = installedPackages(project).length;
    const sdkMb = diskBytes(join(project, 'node_modules')) / 1e6;
    const zodMb = diskBytes(join(zodOnly, 'node_modules')) / 1e6;
    const results: BenchResult[] = [
      ci,
      ...packs.results,
      {
        name: 'install.packages',
        value: packages,
        baseline: 40,
        ratio: round(packages / 40),
        unit: 'packages',
        target: 'ratio <= 1',
        note: 'production packages of a fresh install of the packed SDK; the baseline is the goal (40)',
      },
      {
        name: 'install.disk',
        value: round(sdkMb),
        baseline: round(zodMb),
        ratio: round(sdkMb / zodMb),
        unit: 'MB',
        note: 'node_modules of the packed SDK installed alone, vs zod installed alone (sharp and libvips are most of it)',
      },
    ];
    const samples = new Map<string, Array<{ ms: number; rss: number }>>([
      ['zod', []],
      ...ENTRIES.map((e) => [e, []] as [string, []]),
    ]);
    for (let i = 0; i < RUNS; i++) {
      for (const spec of samples.keys()) samples.get(spec)!.push(await importOnce(project, spec));
    }
    const baseMs = median(samples.get('zod')!.map((s) => s.ms));
    const baseRss = median(samples.get('zod')!.map((s) => s.rss)) / 1048576;
    for (const entry of ENTRIES) {
      const ms = median(samples.get(entry)!.map((s) => s.ms));
      const rss = median(samples.get(entry)!.map((s) => s.rss)) / 1048576;
      const name = entry.replace('happy-session', 'import.root').replace('root/', '');
      results.push(
        {
          name: `${name}.ms`,
          value: round(ms),
          baseline: round(baseMs),
          ratio: round(ms / baseMs),
          unit: 'ms',
          ...(entry === 'happy-session/node' ? { target: 'value <= 100' } : {}),
          note: `median of ${RUNS} fresh processes, interleaved with import('zod'), from the installed package`,
        },
        {
          name: `${name}.rss`,
          value: round(rss),
          baseline: round(baseRss),
          ratio: round(rss / baseRss),
          unit: 'MB',
          note: "process RSS after the import, vs after import('zod')",
        },
      );
    }
    return results;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

await runIfMain(import.meta.url, runBench);
