import type { SessionSummary } from 'happy-session/node';
import { EXIT } from '../exitCodes.js';
import type { ExitCode } from '../exitCodes.js';
import type { Print } from '../output.js';
import { openCommandAccount } from './context.js';
import type { CommandContext } from './context.js';

/** Options of `happy-session sessions`. */
export interface SessionsOptions {
  /** Server URL; default `HAPPY_SERVER_URL`, settings.json, then Happy's server. */
  readonly server?: string;
  /** Print a JSON array instead of the table. */
  readonly json?: boolean;
}

/**
 * `happy-session sessions`: the account's sessions as the app lists them (newest first, at most
 * 150) with id, title, whether it is active, and when it was last updated. Credentials come from
 * the Happy home directory as `connect()` finds them.
 *
 * @throws {SdkError} `credentials.*` without credentials; `transport.*` when the server fails.
 */
export async function sessionsCommand(
  options: SessionsOptions,
  print: Print,
  context: CommandContext = {},
): Promise<ExitCode> {
  const account = await openCommandAccount(options.server, context);
  try {
    const sessions = await account.listSessions();
    if (options.json) {
      print(JSON.stringify(sessions.map(sessionJson)));
      return EXIT.ok;
    }
    if (sessions.length === 0) {
      print(`No sessions on ${account.serverUrl}.`);
      return EXIT.ok;
    }
    const idWidth = Math.max(2, ...sessions.map((s) => s.id.length));
    print(`${'ID'.padEnd(idWidth)}  ACTIVE  UPDATED           TITLE`);
    for (const s of sessions) {
      print(
        `${s.id.padEnd(idWidth)}  ${(s.active ? 'yes' : 'no').padEnd(6)}  ${localTime(s.updatedAt)}  ${titleOf(s)}`,
      );
    }
    return EXIT.ok;
  } finally {
    await account.close();
  }
}

function sessionJson(s: SessionSummary): Record<string, unknown> {
  return {
    id: s.id,
    title: s.title ?? null,
    path: s.path ?? null,
    active: s.active,
    createdAt: new Date(s.createdAt).toISOString(),
    updatedAt: new Date(s.updatedAt).toISOString(),
    seq: s.seq,
    ...(s.unreadable ? { unreadable: s.unreadable } : {}),
  };
}

function titleOf(s: SessionSummary): string {
  if (s.unreadable) return `(metadata unreadable: ${s.unreadable})`;
  const title = s.title ?? '(untitled)';
  return s.path ? `${title}  (${s.path})` : title;
}

/** `YYYY-MM-DD HH:MM` in local time. */
function localTime(ms: number): string {
  const d = new Date(ms);
  const two = (n: number): string => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}`;
}
