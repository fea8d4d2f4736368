import { constants } from 'node:os';
import type { TurnEndStatus } from 'happy-session';

/** How a command ended: its exit code, the signal that killed it, or why it could not start. */
export interface ExitStatus {
  readonly code: number | null;
  readonly signal: string | null;
  /** The spawn error's code (`ENOENT`, `EACCES`, ...) when the command never started. */
  readonly spawnError?: string;
}

/**
 * The exit code `run` passes on (docs/cli.md, "Exit codes"): the command's own; 128 + the signal's
 * number when a signal killed it, as shells report it; 127 when it was not found and 126 when it
 * could not be executed, as shells do.
 */
export function exitCodeOf(status: ExitStatus): number {
  if (status.spawnError !== undefined) return status.spawnError === 'ENOENT' ? 127 : 126;
  if (status.signal !== null) {
    const number = (constants.signals as Record<string, number | undefined>)[status.signal];
    return 128 + (number ?? 0);
  }
  return status.code ?? 1;
}

/** The step's `tool-call-end` error: undefined on success, else the status and the last lines. */
export function stepErrorOf(
  status: ExitStatus,
  lastLines: readonly string[],
  command: string,
): string | undefined {
  let what: string;
  if (status.spawnError !== undefined) {
    what =
      status.spawnError === 'ENOENT'
        ? `command not found: ${command}`
        : `${command} could not be started (${status.spawnError})`;
  } else if (status.signal !== null) what = `killed by ${status.signal}`;
  else if (status.code === 0) return undefined;
  else what = `exit status ${status.code ?? 1}`;
  const tail = lastLines.join('\n');
  return tail ? `${what}\n${tail}` : what;
}

/** The turn's end: completed on success, cancelled when a signal stopped the command, else failed. */
export function turnStatusOf(status: ExitStatus): TurnEndStatus {
  if (status.spawnError === undefined && status.signal === null && status.code === 0) return 'completed';
  return status.signal !== null ? 'cancelled' : 'failed';
}
