import { EXIT } from '../exitCodes.js';
import type { ExitCode } from '../exitCodes.js';
import type { Print } from '../output.js';
import { UploadProgress, describeUpload } from '../progress/uploads.js';
import { agentConnected, withUserSession } from './context.js';
import type { CommandContext } from './context.js';

/** Options of `happy-session send`. */
export interface SendCommandOptions {
  readonly server?: string;
  /** Files sent before the text, as the user's attachments. */
  readonly file?: readonly string[];
  /** Print `{session, seq, messageId, files}` as one JSON line. */
  readonly json?: boolean;
}

/**
 * `happy-session send <session> <text> [--file F…]`: sends a prompt to the agent of a session as
 * the Happy app does (`UserSession.send`): each file uploaded (a bar per file on a terminal), then
 * the text. The agent's session goes on; nothing of it is ended. When the agent is not connected
 * (the session is not active) the prompt is still stored, and the command says nobody reads it yet.
 *
 * @returns 0; 130 when Ctrl-C stopped an upload (the text is then not sent).
 * @throws {SdkError} `credentials.*`, `transport.*` when the session cannot be opened; `media.*`
 *   for a file that cannot be sent (the text is then not sent either).
 */
export async function sendCommand(
  sessionId: string,
  text: string,
  options: SendCommandOptions,
  print: Print,
  context: CommandContext = {},
): Promise<ExitCode> {
  const files = options.file ?? [];
  return withUserSession(sessionId, options.server, context, async (session, account) => {
    const connected = await agentConnected(account, session.id);
    const progress =
      files.length > 0 ? new UploadProgress(files, context.progress ?? { printLine: () => {} }) : undefined;
    let sent;
    try {
      sent = await session.send(text, {
        files,
        ...(progress ? { onProgress: progress.onProgress } : {}),
        ...(context.signal ? { signal: context.signal } : {}),
      });
    } catch (error) {
      progress?.fail(error instanceof Error ? error.message : String(error));
      // Ctrl-C during an upload: nothing of the prompt was sent after it.
      if (context.signal?.aborted) return EXIT.interrupted;
      throw error;
    }
    progress?.finish(sent.files);
    if (options.json) {
      print(
        JSON.stringify({
          session: session.id,
          seq: sent.delivered.seq,
          messageId: sent.message.id,
          files: sent.files.map((m) => ({ id: m.id, type: m.type, ref: m.ref, ...fileFields(m) })),
          agentConnected: connected,
        }),
      );
    } else {
      const attached = sent.files.length > 0 ? ` with ${sent.files.map(describeUpload).join('; ')}` : '';
      print(`Sent to ${session.title ?? session.id} (seq ${sent.delivered.seq})${attached}.`);
      if (!connected)
        print(
          'The agent is not connected: nobody reads this until an agent opens the session again (`happy-session sessions` shows which are active).',
        );
    }
    return EXIT.ok;
  });
}

function fileFields(message: { type: string } & Record<string, unknown>): Record<string, unknown> {
  const { name, size, mimeType, width, height } = message;
  return Object.fromEntries(
    Object.entries({ name, size, mimeType, width, height }).filter(([, v]) => v !== undefined),
  );
}
