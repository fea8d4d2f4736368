import { randomBytes } from 'happy-session/internal';
import { SdkError } from 'happy-session';
import { startRelay } from 'happy-session-relay';
import { connect } from 'happy-session/node';
import type { Credentials, HappyEnv } from 'happy-session/node';
import { fold } from 'happy-session';
import { Account } from 'happy-session/node';
import { runExampleAgent } from '../demo/exampleAgent.js';
import { keyboardScript } from '../demo/keyboardScript.js';
import { ScriptedUser, demoAnswers } from '../demo/scriptedUser.js';
import { EXIT } from '../exitCodes.js';
import type { ExitCode } from '../exitCodes.js';
import type { Print } from '../output.js';
import type { Terminal } from '../terminal.js';
import { renderTranscript } from '../transcript.js';
import type { CliErrorCode } from '../errorCodes.js';

/** Options of the demo command. */
export interface DemoOptions {
  /**
   * Run on this server with the keys `connect()` finds (HAPPY_HOME_DIR), instead of a relay
   * started in process with a throwaway account. The session stays there, archived.
   */
  readonly server?: string;
  /** Keep the in-process relay (and its viewer) up after the transcript, until Ctrl-C. */
  readonly keep?: boolean;
  /** Print the decrypted messages as JSON lines instead of the transcript. */
  readonly json?: boolean;
  /** Answer the permission prompts from the keyboard instead of the scripted `allow-once`. */
  readonly interactive?: boolean;
}

/** What `--interactive` needs: keys, where the prompts go, and Ctrl-C from outside. */
export interface DemoContext {
  readonly terminal?: Terminal;
  /** Where the permission prompts are printed; default `print`. */
  readonly printPrompt?: Print;
  /**
   * Aborted by SIGINT: the turn is aborted, which cancels a waiting permission request; with
   * `keep`, it stops the relay.
   */
  readonly signal?: AbortSignal;
  /** Where lines that are not the transcript go (the viewer link of `keep`); default `print`. */
  readonly printInfo?: Print;
  /** Environment to find `--server`'s keys in; default `process.env`. */
  readonly env?: HappyEnv;
}

/** What the scripted user asks. */
export const DEMO_PROMPT = 'Find TODOs and review the auth code';

/**
 * `happy-session demo`: the whole path on one machine. Starts a relay in process on a free port,
 * makes a throwaway account (a random master secret), opens a session with `connect()` and puts a
 * `PermissionGate` on its writer. A scripted user (another connection of the account, as the app
 * would be) sends the prompt and answers the permission request with `allow-once`, or asks the
 * keyboard with `interactive`; the example agent answers through `session.writer`. Then the user's
 * side reads the stream back, decrypting every record with the session key it unwraps itself, and
 * the transcript is printed. The relay stops at the end; nothing is written to disk. With `server`,
 * it runs on that server with the keys `connect()` finds, and starts no relay; with `keep`, its
 * relay stays up (and the viewer link is printed) until Ctrl-C.
 *
 * @returns 0; 1 when a record could not be read back; 130 when interrupted (the turn then ends
 *   `cancelled` and the transcript is still printed).
 * @throws {SdkError} `cli.no_terminal` for `interactive` without a terminal.
 */
export async function demoCommand(
  options: DemoOptions,
  print: Print,
  context: DemoContext = {},
): Promise<ExitCode> {
  if (options.interactive && !context.terminal) {
    throw new SdkError<CliErrorCode>(
      'cli.no_terminal',
      'The interactive demo needs a terminal to read keys from.',
      {
        hint: 'run it in a terminal, or without --interactive',
      },
    );
  }
  const relay = options.server === undefined ? await startRelay() : undefined;
  try {
    const server = options.server ?? relay!.url;
    // A throwaway account on the demo's own relay; on --server, the keys connect() finds.
    const credentials: Credentials | undefined = relay
      ? { kind: 'master', masterSecret: randomBytes(32) }
      : undefined;
    const access = {
      server,
      ...(credentials ? { credentials } : {}),
      ...(context.env ? { env: context.env } : {}),
    };
    // The command handles Ctrl-C itself (the turn ends cancelled and the transcript is printed).
    const session = await connect({ ...access, title: 'happy-session demo', shutdownSignals: false });
    const account = await Account.open(access);
    let interrupted = false;
    const interrupt = (): void => {
      interrupted = true;
      for (const turn of session.writer.openTurns) turn.abort(new Error('interrupted'));
    };
    context.signal?.addEventListener('abort', interrupt, { once: true });
    try {
      // connect() put a PermissionGate on the session: the agent's gated calls wait for the user.
      const script =
        options.interactive && context.terminal
          ? keyboardScript(context.terminal, context.printPrompt ?? print, interrupt)
          : demoAnswers;
      const user = await ScriptedUser.open(account, session.id, script);
      try {
        await user.send(DEMO_PROMPT);
        for await (const prompt of session.prompts()) {
          await runExampleAgent(session.writer, prompt.text, { ask: true });
          break;
        }
        // Closing the writer also disposes the gate.
        await session.close();
        const events = await user.session.reader.readAll();
        const messages = events.flatMap((e) => (e.kind === 'message' ? [e.message] : []));
        if (options.json) {
          for (const m of messages) print(JSON.stringify(m));
        } else {
          print(`session ${session.id} on ${relay ? `an in-process relay at ${relay.url}` : server}`);
          print(`${events.length} encrypted records, read back and decrypted on the user's side:`);
          print('');
          print(renderTranscript(fold(messages)));
        }
        if (interrupted) return EXIT.interrupted;
        const code = events.some((e) => e.kind === 'error') ? EXIT.failure : EXIT.ok;
        if (options.keep && relay && credentials?.kind === 'master') {
          // Printed only now: this link stays valid for as long as the relay is kept up.
          const info = context.printInfo ?? print;
          // A one-time link, as `serve` prints: the secret itself never reaches the terminal.
          info(`viewer: ${relay.viewerLink(credentials.masterSecret, session.id)}`);
          info(`relay: HAPPY_SERVER_URL=${relay.url} (Ctrl-C stops it)`);
          await untilAborted(context.signal);
        }
        return code;
      } finally {
        await user.close();
      }
    } finally {
      context.signal?.removeEventListener('abort', interrupt);
      await session.close();
      await account.close();
    }
  } finally {
    await relay?.close();
  }
}

/** Resolves when `signal` aborts (never without one). */
function untilAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    signal?.addEventListener('abort', () => resolve(), { once: true });
  });
}
