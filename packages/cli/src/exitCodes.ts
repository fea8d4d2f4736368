import { isSdkError } from 'happy-session';
import type { CliErrorCode } from './errorCodes.js';

/**
 * Exit codes of the `happy-session` command (documented in `docs/cli.md`): shells and scripts
 * switch on them, so they never change meaning.
 */
export const EXIT = {
  /** The command did what it was asked. */
  ok: 0,
  /** It failed: the server refused, credentials are missing, a time-out ran out, … */
  failure: 1,
  /** The command line was wrong: unknown option, missing argument, bad value. */
  usage: 2,
  /** `run --ask`: the permission request was denied, and the command did not run (sysexits' EX_NOPERM). */
  denied: 77,
  /** Ctrl-C (SIGINT) stopped a command that waits (login, watch): 128 + SIGINT, as shells do. */
  interrupted: 130,
} as const;

/** One of the {@link EXIT} codes. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/**
 * The codes of a command line the command itself finds wrong (options that do not go together, a
 * missing choice or answer): usage errors like commander's, so they end with {@link EXIT.usage}.
 */
const USAGE_CODES: ReadonlySet<string> = new Set<CliErrorCode>(['cli.usage', 'cli.bad_choice']);

/**
 * The exit code of a command that failed with `error` (docs/cli.md, "Exit codes"): 2 for a usage
 * error a command found, 1 for any other failure.
 */
export function failureExit(error: unknown): ExitCode {
  return isSdkError(error) && USAGE_CODES.has(error.code) ? EXIT.usage : EXIT.failure;
}
