import { Account } from 'happy-session/node';
import type { HappyEnv } from 'happy-session/node';

/** What a command takes from its surroundings besides its options; tests pass their own. */
export interface CommandContext {
  /** Aborted on Ctrl-C (SIGINT); commands that wait then stop with exit code 130. */
  readonly signal?: AbortSignal;
  /** Environment to read `HAPPY_*` from; default `process.env`. */
  readonly env?: HappyEnv;
  /** Happy home directory; default `HAPPY_HOME_DIR` or `~/.happy`. */
  readonly homeDir?: string;
}

/** The account a command works on: `--server` if given, keys and server otherwise as `connect()` finds them. */
export function openCommandAccount(server: string | undefined, context: CommandContext): Promise<Account> {
  return Account.open({
    ...(server !== undefined ? { server } : {}),
    ...(context.env ? { env: context.env } : {}),
    ...(context.homeDir !== undefined ? { homeDir: context.homeDir } : {}),
  });
}
