/**
 * What the sandbox costs per command (docs/sandbox.md, "What it costs"): `shell.run()` of a small
 * command (`echo ok` in a workspace of 200 files) inside the sandbox, as a ratio to the same
 * command through the same shell unsandboxed (`unsandboxed: true`: the same spawn, output and
 * process-group handling, without bubblewrap), measured in the same run, interleaved. The
 * sandboxed figure includes what each command pays: the scan of the workspace for protected
 * paths, the runtime's wrap (its own ripgrep scan), bubblewrap's namespaces and mounts, and the
 * removal of the placeholders afterwards.
 *
 * Target: p50 <= 600 ms per sandboxed command; the ratio is reported, not targeted (a bare spawn
 * costs a few milliseconds, so any sandbox is many times that).
 *
 * Run directly: `npx tsx bench/sandbox.bench.ts`.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sandboxedShell } from '../packages/sdk/src/sandbox/index.js';
import { runIfMain } from './lib/main.js';
import { percentile, round, timed } from './lib/stats.js';
import type { BenchResult } from './types.js';

const ROUNDS = Number(process.env.BENCH_SANDBOX_ROUNDS ?? 30);

/** Runs the sandbox benchmark and returns its result. */
export default async function main(): Promise<BenchResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'happy-bench-sandbox-'));
  const workspace = join(dir, 'workspace');
  for (let d = 0; d < 20; d++) {
    await mkdir(join(workspace, `dir${d}`), { recursive: true });
    for (let f = 0; f < 10; f++) await writeFile(join(workspace, `dir${d}`, `file${f}.ts`), 'export {};\n');
  }
  await mkdir(join(workspace, '.git'), { recursive: true });
  const shell = await sandboxedShell({ workspaceRoot: workspace, homeDir: join(dir, 'home') });
  try {
    if (shell.unavailable) throw shell.unavailable;
    const sandboxed: number[] = [];
    const plain: number[] = [];
    for (let i = 0; i < 3; i++) {
      await shell.run('echo ok');
      await shell.run('echo ok', { unsandboxed: true });
    }
    for (let i = 0; i < ROUNDS; i++) {
      sandboxed.push(await timed(() => shell.run('echo ok')));
      plain.push(await timed(() => shell.run('echo ok', { unsandboxed: true })));
    }
    const value = percentile(sandboxed, 50);
    const baseline = percentile(plain, 50);
    return [
      {
        name: 'sandbox.exec.p50',
        value: round(value),
        baseline: round(baseline),
        ratio: round(value / baseline),
        unit: 'ms',
        target: 'value <= 600',
        note: `shell.run('echo ok') sandboxed (bubblewrap, network proxy, a 200-file workspace scanned) vs the same call unsandboxed; p50 of ${ROUNDS} interleaved rounds; p90 ${round(percentile(sandboxed, 90))} ms`,
      },
    ];
  } finally {
    await shell.close();
    await rm(dir, { recursive: true, force: true });
  }
}

await runIfMain(import.meta.url, main);
