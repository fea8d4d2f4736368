import { SdkError } from 'happy-session';
import { EXIT } from '../exitCodes.js';
import type { ExitCode } from '../exitCodes.js';
import type { Print } from '../output.js';
import { agentConnected, withUserSession } from './context.js';
import type { CommandContext } from './context.js';
import type { CliErrorCode } from '../errorCodes.js';

/** Options of `happy-session stop`. */
export interface StopOptions {
  readonly server?: string;
  /** Print `{session, aborted}` as one JSON line. */
  readonly json?: boolean;
}

/**
 * `happy-session stop <session>`: stops the agent's current turn with the `abort` RPC, as the
 * app's stop button does (`UserSession.stop`). An agent built on the SDK aborts each open turn's
 * signal and answers with how many it aborted; the session itself goes on.
 *
 * @throws {SdkError} `cli.agent_unreachable` at once when the agent is not connected (the session
 *   is not active), or when no agent takes the RPC (it does not register `abort`); `credentials.*`, `transport.*` when the session cannot be opened.
 */
export async function stopCommand(
  sessionId: string,
  options: StopOptions,
  print: Print,
  context: CommandContext = {},
): Promise<ExitCode> {
  return withUserSession(sessionId, options.server, context, async (session, account) => {
    // Without an agent the RPC would only wait for the server's timeout: say so at once.
    if (!(await agentConnected(account, session.id))) {
      throw new SdkError<CliErrorCode>(
        'cli.agent_unreachable',
        `The agent of session ${session.id} is not connected.`,
        {
          hint: 'nothing runs there to stop; `happy-session sessions` shows which sessions are active',
          details: { sessionId: session.id, error: 'not connected' },
        },
      );
    }
    const outcome = await session.stop();
    if (!outcome.ok) {
      throw new SdkError<CliErrorCode>(
        'cli.agent_unreachable',
        `The agent of session ${session.id} did not take the stop: ${outcome.error}.`,
        {
          hint: 'check that the agent is running: `happy-session sessions` shows whether its session is active',
          details: { sessionId: session.id, error: outcome.error },
        },
      );
    }
    const result = outcome.result as { aborted?: unknown } | null;
    const aborted = typeof result?.aborted === 'number' ? result.aborted : null;
    if (options.json) print(JSON.stringify({ session: session.id, aborted }));
    else if (aborted === 0) print('The agent had no turn running.');
    else
      print(
        `Stopped ${aborted === null ? 'the current turn' : aborted === 1 ? '1 turn' : `${aborted} turns`}.`,
      );
    return EXIT.ok;
  });
}
