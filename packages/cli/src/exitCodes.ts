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
