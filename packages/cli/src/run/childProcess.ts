import { spawn } from 'node:child_process';
import type { Writable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import type { ExitStatus } from './exitStatus.js';

/** The signals `run` passes on to its command instead of acting on them itself. */
export const FORWARDED_SIGNALS: readonly NodeJS.Signals[] = [
  'SIGINT',
  'SIGTERM',
  'SIGHUP',
  'SIGQUIT',
  'SIGUSR1',
  'SIGUSR2',
];

/** How long output is still read after the command exited (see {@link runChild}). */
export const OUTPUT_GRACE_MS = 2_000;

/** Options of {@link runChild}. */
export interface RunChildOptions {
  readonly env: NodeJS.ProcessEnv;
  readonly cwd: string;
  /**
   * Sees each chunk of output as text before it is echoed to `stdout` / `stderr`; a promise holds
   * the echo (and the reading of that stream) until it settles.
   */
  readonly onOutput: (text: string) => void | Promise<void>;
  /** Where the command's output is echoed, unchanged: `run` is transparent to pipes and redirections. */
  readonly stdout: Writable;
  readonly stderr: Writable;
}

/**
 * Runs `command` (no shell: `run -- sh -c '…'` for one) with the terminal's stdin, its stdout and
 * stderr echoed and reported, and the signals of {@link FORWARDED_SIGNALS} passed on to it while it
 * runs. Resolves once it has exited and its output is read (at most {@link OUTPUT_GRACE_MS} more:
 * a background process it started may keep the pipes open); never rejects (a command that cannot
 * start resolves with `spawnError`).
 */
export function runChild(command: readonly string[], options: RunChildOptions): Promise<ExitStatus> {
  return new Promise((resolve) => {
    const child = spawn(command[0]!, command.slice(1), {
      env: options.env,
      cwd: options.cwd,
      stdio: ['inherit', 'pipe', 'pipe'],
    });
    const forward = (signal: NodeJS.Signals): void => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    };
    for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
    const stopForwarding = (): void => {
      for (const signal of FORWARDED_SIGNALS) process.off(signal, forward);
    };
    relay(child.stdout, options.stdout, options.onOutput);
    relay(child.stderr, options.stderr, options.onOutput);
    child.once('error', (error: NodeJS.ErrnoException) => {
      stopForwarding();
      resolve({ code: null, signal: null, spawnError: error.code ?? 'EIO' });
    });
    child.once('exit', (code, signal) => {
      stopForwarding();
      // Output still in the pipes is read; a process the command left running in the background
      // may hold them open for as long as it lives, so reading stops after a grace period.
      const stop = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        resolve({ code, signal });
      }, OUTPUT_GRACE_MS);
      child.once('close', () => {
        clearTimeout(stop);
        resolve({ code, signal });
      });
    });
  });
}

/** Reports each chunk, then echoes it; reading pauses while a report is in flight. A read error ends the output. */
function relay(
  from: NodeJS.ReadableStream & { pause(): unknown; resume(): unknown },
  to: Writable,
  report: (text: string) => void | Promise<void>,
): void {
  const decoder = new StringDecoder('utf8');
  from.on('data', (chunk: Buffer) => {
    const text = decoder.write(chunk);
    const reported = text === '' ? undefined : report(text);
    if (reported === undefined) {
      to.write(chunk);
      return;
    }
    from.pause();
    void reported.finally(() => {
      to.write(chunk);
      from.resume();
    });
  });
  const flush = (): void => {
    const rest = decoder.end();
    if (rest !== '') void report(rest);
  };
  from.on('end', flush);
  // A pipe reset from the command's side (ECONNRESET) ends its output as its end does; the exit
  // status still comes from the process.
  from.on('error', flush);
}
