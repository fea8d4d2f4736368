import { Account } from 'happy-session/node';
import type { HappyEnv } from 'happy-session/node';
import type { UserSession } from 'happy-session/user';
import type { ProgressTarget } from '../progress/fileProgress.js';

/** What a command takes from its surroundings besides its options; tests pass their own. */
export interface CommandContext {
  /** Aborted on Ctrl-C (SIGINT); commands that wait then stop with exit code 130. */
  readonly signal?: AbortSignal;
  /** Environment to read `HAPPY_*` from; default `process.env`. */
  readonly env?: HappyEnv;
  /** Happy home directory; default `HAPPY_HOME_DIR` or `~/.happy`. */
  readonly homeDir?: string;
  /** Where upload progress goes: bars on a terminal, plain lines otherwise. */
  readonly progress?: ProgressTarget;
}

/** The account a command works on: `--server` if given, keys and server otherwise as `connect()` finds them. */
export function openCommandAccount(server: string | undefined, context: CommandContext): Promise<Account> {
  return Account.open({
    ...(server !== undefined ? { server } : {}),
    ...(context.env ? { env: context.env } : {}),
    ...(context.homeDir !== undefined ? { homeDir: context.homeDir } : {}),
  });
}

/**
 * Runs `work` on `sessionId` opened from the user's side (`Account.session()`), then closes the
 * session and the account's socket. The agent's session is never ended.
 */
export async function withUserSession<T>(
  sessionId: string,
  server: string | undefined,
  context: CommandContext,
  work: (session: UserSession, account: Account) => Promise<T>,
): Promise<T> {
  const account = await openCommandAccount(server, context);
  try {
    const session = await account.session(sessionId);
    try {
      return await work(session, account);
    } finally {
      await session.close();
    }
  } finally {
    await account.close();
  }
}

/**
 * Whether the agent of `sessionId` is connected, as the server says (the session's `active`: its
 * heartbeat runs and it has not ended the session, docs/wire.md §4.5). An agent that exited has
 * ended its session, so nobody is there to read a prompt or take the `abort` RPC.
 */
export async function agentConnected(account: Account, sessionId: string): Promise<boolean> {
  const row = (await account.listSessions()).find((s) => s.id === sessionId);
  return row?.active === true;
}
