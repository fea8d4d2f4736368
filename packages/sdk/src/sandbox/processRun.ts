import { spawn } from 'node:child_process';
import { StringDecoder } from 'node:string_decoder';

/** Which stream a chunk of output came from. */
export type OutputStream = 'stdout' | 'stderr';

/** How a command ended. */
export interface ProcessExit {
  /** The exit status; `null` when a signal ended it. */
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  /** True when the call's signal stopped it. */
  readonly aborted: boolean;
  /** The output, both streams in order, cut to its last `keepBytes`. */
  readonly output: string;
  /** The error output alone, cut the same way (violations are read from it). */
  readonly stderr: string;
}

export interface ProcessRunOptions {
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env: NodeJS.ProcessEnv;
  readonly signal: AbortSignal;
  readonly onOutput: (text: string, stream: OutputStream) => void;
  /** Output kept for the result; default 256 KiB. */
  readonly keepBytes?: number;
}

/** How long output is still read after the command exited while something it left keeps the pipes. */
const OUTPUT_GRACE_MS = 2_000;

/**
 * Runs one command (outside the sandbox: a call allowed to leave it, or the preview's own bwrap) in
 * a process group of its own and streams its output. The call's signal ends the whole group at
 * once (SIGKILL), and what is left of the group when the command exits is ended too; a process
 * that left the group is not followed (the warm sandbox's supervisor follows those inside it).
 * Never rejects: a command that cannot start resolves
 * with exit status 127 and the reason as its error output.
 */
export function runProcess(options: ProcessRunOptions): Promise<ProcessExit> {
  const keep = options.keepBytes ?? 256 * 1024;
  return new Promise((resolve) => {
    let output = '';
    let stderr = '';
    let aborted = false;
    let settled = false;
    const child = spawn(options.file, [...options.args], {
      cwd: options.cwd,
      env: options.env,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    const kill = (): void => {
      aborted = true;
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    };
    if (options.signal.aborted) kill();
    else options.signal.addEventListener('abort', kill, { once: true });
    const take = (stream: OutputStream) => {
      const decoder = new StringDecoder('utf8');
      return (chunk: Buffer): void => {
        const text = decoder.write(chunk);
        if (text === '') return;
        output = cut(output + text, keep);
        if (stream === 'stderr') stderr = cut(stderr + text, keep);
        options.onOutput(text, stream);
      };
    };
    child.stdout.on('data', take('stdout'));
    child.stderr.on('data', take('stderr'));
    const finish = (exitCode: number | null, signal: NodeJS.Signals | null): void => {
      if (settled) return;
      settled = true;
      options.signal.removeEventListener('abort', kill);
      resolve({ exitCode, signal, aborted, output, stderr });
    };
    child.once('error', (error: NodeJS.ErrnoException) => {
      const text = `${options.file}: ${error.code ?? error.message}\n`;
      stderr += text;
      output += text;
      finish(127, null);
    });
    child.once('exit', (code, signal) => {
      // What the command left running in its group ends with it (docs/sandbox.md, "Running a call's command").
      if (child.pid !== undefined) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Nothing left.
        }
      }
      const stop = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish(code, signal);
      }, OUTPUT_GRACE_MS);
      child.once('close', () => {
        clearTimeout(stop);
        finish(code, signal);
      });
    });
  });
}

function cut(text: string, keep: number): string {
  return text.length > keep ? text.slice(text.length - keep) : text;
}
