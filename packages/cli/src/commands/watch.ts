import { SessionFold } from 'happy-session';
import type { ReaderEvent } from 'happy-session';
import type { UserSession } from 'happy-session/user';
import { EXIT } from '../exitCodes.js';
import type { ExitCode } from '../exitCodes.js';
import type { Print } from '../output.js';
import type { Terminal } from '../terminal.js';
import { renderTranscript } from '../transcript.js';
import { WatchView } from '../watch/watchView.js';
import { openCommandAccount } from './context.js';
import type { CommandContext } from './context.js';

/** Options of `happy-session watch`. */
export interface WatchOptions {
  /** Server URL; default `HAPPY_SERVER_URL`, settings.json, then Happy's server. */
  readonly server?: string;
  /** Print one JSON line per record instead of the live screen. */
  readonly json?: boolean;
  /** Print what is stored now and exit, instead of following the session. */
  readonly once?: boolean;
}

/**
 * `happy-session watch <sessionId>`: opens a session of the account with the master secret
 * (agent.key) and shows it live: turns, tool calls nested by `parentId`, subagents, the status of
 * each call, media, and permission prompts answered with the number keys. `--json` follows the
 * stream as JSON lines; `--once` prints what is stored now and exits.
 *
 * @returns 0 after `q` or `--once`, 130 after Ctrl-C.
 * @throws {SdkError} `credentials.*`, `transport.*` when the session cannot be opened or read.
 */
export async function watchCommand(
  sessionId: string,
  options: WatchOptions,
  terminal: Terminal,
  print: Print,
  context: CommandContext = {},
): Promise<ExitCode> {
  const account = await openCommandAccount(options.server, context);
  try {
    const session = await account.session(sessionId);
    try {
      if (options.once) {
        const events = await session.reader.readAll();
        if (options.json) {
          for (const event of events) print(JSON.stringify(eventJson(event)));
        } else {
          const fold = new SessionFold();
          for (const event of events) if (event.kind === 'message') fold.apply(event.message);
          print(`${session.title ?? '(untitled)'} · ${session.id}`);
          print(renderTranscript(fold));
          for (const e of events) if (e.kind === 'error') print(`record ${e.seq} unreadable: ${e.code}`);
        }
        return EXIT.ok;
      }
      if (options.json) return await followJson(session, print, context.signal);
      return await new WatchView(session, account.serverUrl, terminal).run(context.signal);
    } finally {
      await session.close();
    }
  } finally {
    await account.close();
  }
}

/**
 * A reader event as one JSON line: `{seq, message}` (with `format` and `lost` for a v1 or legacy
 * record), `{seq, skipped: {format, reason}}` or `{seq, error: {code, message}}`.
 */
function eventJson(event: ReaderEvent): unknown {
  switch (event.kind) {
    case 'message':
      return event.format === 'v2'
        ? { seq: event.seq, message: event.message }
        : { seq: event.seq, message: event.message, format: event.format, lost: event.lost };
    case 'skipped':
      return { seq: event.seq, skipped: { format: event.format, reason: event.reason } };
    case 'error':
      return { seq: event.seq, error: { code: event.code, message: event.message } };
  }
}

function followJson(session: UserSession, print: Print, signal: AbortSignal | undefined): Promise<ExitCode> {
  return new Promise((resolve, reject) => {
    const subscription = session.events$({ afterSeq: 0 }).subscribe({
      next: (event) => print(JSON.stringify(eventJson(event))),
      error: (error: unknown) => {
        signal?.removeEventListener('abort', onAbort);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    });
    const onAbort = (): void => {
      subscription.unsubscribe();
      resolve(EXIT.interrupted);
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}
