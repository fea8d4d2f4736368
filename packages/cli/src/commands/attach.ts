import { EXIT } from '../exitCodes.js';
import type { ExitCode } from '../exitCodes.js';
import type { Print } from '../output.js';
import { UploadProgress, describeUpload } from '../progress/uploads.js';
import { withUserSession } from './context.js';
import type { CommandContext } from './context.js';

/** Options of `happy-session attach`. */
export interface AttachCommandOptions {
  readonly server?: string;
  /** A line of agent text after the files. */
  readonly text?: string;
  /** Print `{session, turn, messages}` as one JSON line. */
  readonly json?: boolean;
}

/**
 * `happy-session attach <session> <file…>`: adds a turn of the agent's to a session with the files
 * attached (`UserSession.attach`): each prepared (kind, size, ThumbHash), encrypted and uploaded,
 * with a progress bar per file on a terminal and plain lines otherwise, then referenced by its
 * `photo`, `video` or `file` message. The agent's session is not ended.
 *
 * @returns 0; 130 when Ctrl-C stopped it (the turn then ends `cancelled`).
 * @throws {SdkError} `media.*` for a file that cannot be sent (the turn ends `failed`).
 */
export async function attachCommand(
  sessionId: string,
  files: readonly string[],
  options: AttachCommandOptions,
  print: Print,
  context: CommandContext = {},
): Promise<ExitCode> {
  return withUserSession(sessionId, options.server, context, async (session) => {
    const progress = new UploadProgress(files, context.progress ?? { printLine: () => {} });
    let attached;
    try {
      attached = await session.attach(files, {
        onProgress: progress.onProgress,
        ...(options.text !== undefined ? { text: options.text } : {}),
        ...(context.signal ? { signal: context.signal } : {}),
      });
    } catch (error) {
      progress.fail(error instanceof Error ? error.message : String(error));
      if (context.signal?.aborted) return EXIT.interrupted;
      throw error;
    }
    progress.finish(attached.messages);
    if (options.json) {
      print(JSON.stringify({ session: session.id, turn: attached.turn, messages: attached.messages }));
    } else {
      print(`Attached to ${session.title ?? session.id} in a new turn:`);
      for (const message of attached.messages) print(`  ${describeUpload(message)}`);
    }
    return EXIT.ok;
  });
}
