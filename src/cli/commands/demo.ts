import { randomBytes } from '../../crypto/random.js';
import { startRelay } from '../../relay/server.js';
import { connect } from '../../transport/connect.js';
import type { Credentials } from '../../transport/credentials.js';
import { fold } from '../../stream/fold.js';
import { Account } from '../account/account.js';
import { runExampleAgent } from '../demo/exampleAgent.js';
import { ScriptedUser } from '../demo/scriptedUser.js';
import { EXIT } from '../exitCodes.js';
import type { ExitCode } from '../exitCodes.js';
import type { Print } from '../output.js';
import { renderTranscript } from '../transcript.js';

/** Options of the demo command. */
export interface DemoOptions {
  /** Print the decrypted messages as JSON lines instead of the transcript. */
  readonly json?: boolean;
}

/** What the scripted user asks. */
export const DEMO_PROMPT = 'Find TODOs and review the auth code';

/**
 * `happy-session demo`: the whole path on one machine. Starts a relay in process on a free port,
 * makes a throwaway account (a random master secret), opens a session with `connect()`, and lets a
 * scripted user (another connection of the account, as the app would be) send the prompt; the
 * example agent answers it through `session.writer`. Then the user's side reads the stream back,
 * decrypting every record with the session key it unwraps itself, and the transcript is printed.
 * The relay stops at the end; nothing is written to disk.
 *
 * @returns 0, or 1 when a record could not be read back.
 */
export async function demoCommand(options: DemoOptions, print: Print): Promise<ExitCode> {
  const relay = await startRelay();
  try {
    const credentials: Credentials = { kind: 'master', masterSecret: randomBytes(32) };
    const session = await connect({ server: relay.url, credentials, title: 'happy-session demo' });
    const account = await Account.open({ server: relay.url, credentials });
    try {
      const user = await ScriptedUser.open(account, session.id);
      try {
        await user.send(DEMO_PROMPT);
        for await (const prompt of session.prompts()) {
          await runExampleAgent(session.writer, prompt.text);
          break;
        }
        await session.close();
        const events = await user.session.reader.readAll();
        const messages = events.flatMap((e) => (e.kind === 'message' ? [e.message] : []));
        if (options.json) {
          for (const m of messages) print(JSON.stringify(m));
        } else {
          print(`session ${session.id} on an in-process relay at ${relay.url}`);
          print(`${events.length} encrypted records, read back and decrypted on the user's side:`);
          print('');
          print(renderTranscript(fold(messages)));
        }
        return events.some((e) => e.kind === 'error') ? EXIT.failure : EXIT.ok;
      } finally {
        await user.close();
      }
    } finally {
      await session.close();
      await account.close();
    }
  } finally {
    await relay.close();
  }
}
