import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { until } from './until.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A TypeScript fixture running as a process of its own, what it printed kept. */
export interface FixtureProcess {
  readonly child: ChildProcess;
  /** Everything it printed on stdout so far. */
  out(): string;
  /** Everything it printed on stderr so far. */
  err(): string;
  /** Resolves with the exit code. */
  readonly exited: Promise<number | null>;
  /**
   * Waits until stdout matches `line` and returns the match; fails at once when the process's
   * output ended without it, and after a minute (a bound on a hung test) otherwise.
   */
  reach(line: RegExp): Promise<RegExpExecArray>;
}

/**
 * Runs `file` with `node --import tsx` from the repository's root, its environment this process's
 * plus `env`: the real processes the session tests kill, freeze and succeed.
 */
export function startFixture(
  file: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
): FixtureProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', file, ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  let ended = false;
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  // 'close', not 'exit': only then has all of its output been read.
  child.once('close', () => (ended = true));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    child,
    out: () => out,
    err: () => err,
    exited,
    reach: async (line) => {
      const match = await until(() => line.exec(out) ?? (ended ? 'ended' : undefined), {
        timeoutMs: 60_000,
        what: () =>
          `${basename(file)} to print ${line} (exit ${child.exitCode}, stdout ${out}, stderr ${err})`,
      });
      if (match === 'ended')
        throw new Error(`${basename(file)} ended without printing ${line} (exit ${child.exitCode}): ${err}`);
      return match;
    },
  };
}
