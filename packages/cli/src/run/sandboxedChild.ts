import type { Writable } from 'node:stream';
import { sandboxedShell } from 'happy-session/sandbox';
import type { SandboxedShell } from 'happy-session/sandbox';
import type { Print } from '../output.js';
import { FORWARDED_SIGNALS } from './childProcess.js';
import type { ExitStatus } from './exitStatus.js';

/**
 * Opens the sandbox `run --sandbox` runs its command in (docs/cli.md, "run"; docs/sandbox.md):
 * writes only inside `cwd`, no network, the homes hidden but for what `allowRead` (`--allow-read`)
 * names, and the Happy home `happyHomeDir` (the run's own, when it is not the environment's) hidden. Where it cannot run, says why and resolves undefined:
 * the command is then not run at all, never unconfined.
 */
export async function openSandbox(
  cwd: string,
  env: NodeJS.ProcessEnv,
  printError: Print,
  allowRead: readonly string[] = [],
  happyHomeDir?: string,
): Promise<SandboxedShell | undefined> {
  // The Happy home the run's own session uses is hidden, however it was chosen.
  const shell = await sandboxedShell({
    workspaceRoot: cwd,
    env,
    allowRead,
    ...(happyHomeDir !== undefined ? { happyHomeDir } : {}),
  }).catch((error: unknown) => {
    printError(`happy-session run: ${error instanceof Error ? error.message : String(error)}`);
    return undefined;
  });
  if (shell?.unavailable) {
    printError(`happy-session run: ${shell.unavailable.message}; the command was not run`);
    return undefined;
  }
  return shell;
}

/** Options of {@link runSandboxedChild}. */
export interface SandboxedChildOptions {
  readonly cwd: string;
  readonly onOutput: (text: string) => void;
  readonly stdout: Writable;
  readonly stderr: Writable;
  readonly printError: Print;
}

/**
 * Runs `command` (argv, quoted into one shell line) in the sandbox, its output echoed and
 * reported, what the sandbox blocked printed on stderr. A forwarded signal ends the command and
 * everything it started (the sandbox's commands get no terminal stdin and no signals of their own).
 */
export async function runSandboxedChild(
  shell: SandboxedShell,
  command: readonly string[],
  options: SandboxedChildOptions,
): Promise<ExitStatus> {
  const stop = new AbortController();
  const abort = (): void => stop.abort();
  for (const signal of FORWARDED_SIGNALS) process.on(signal, abort);
  try {
    const result = await shell.run(command.map(shellQuote).join(' '), {
      cwd: options.cwd,
      signal: stop.signal,
      onOutput: (text, stream) => {
        options.onOutput(text);
        (stream === 'stdout' ? options.stdout : options.stderr).write(text);
      },
    });
    for (const v of result.violations) {
      const what = v.kind === 'network' ? `a connection to ${v.host}` : `a ${v.kind} of ${v.path}`;
      options.printError(`happy-session run: the sandbox blocked ${what}`);
      options.onOutput(`[sandbox] blocked ${what}\n`);
    }
    return {
      code: result.aborted ? null : result.exitCode,
      signal: result.aborted ? 'SIGTERM' : result.signal,
    };
  } finally {
    for (const signal of FORWARDED_SIGNALS) process.off(signal, abort);
  }
}

/** One argv word as bash reads it back: single-quoted unless it is plainly safe. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
