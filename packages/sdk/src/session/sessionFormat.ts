import type { StateObject } from '../ports/sessionState.js';
import type { ReaderEvent, SessionReader } from '../stream/sessionReader.js';

/** The format a session's records are written in (docs/v1-format.md, "Which format"). */
export type SessionFormat = 'v1' | 'v2';

/**
 * What one record says of its session's format: a v2 message says v2; a v1 session record, or a
 * legacy record of the agent's (the v1 encoder's results and status lines), says v1. The app's
 * legacy user text is written into sessions of both formats, so it says nothing; nor do records
 * that cannot be read.
 */
export function formatOfRecord(event: ReaderEvent): SessionFormat | undefined {
  if (event.kind === 'error') return undefined;
  if (event.format === 'v2') return 'v2';
  if (event.format === 'v1') return 'v1';
  return event.kind === 'message' && event.message.role === 'agent' ? 'v1' : undefined;
}

/**
 * The format a session is written in, read from its records (docs/user-side.md, "The session's
 * format"): the first record that says one decides, so a user-side command writes in the format
 * the agent writes and never mixes two in one session. Reads page by page and stops at that
 * record; `undefined` for a session with no record that says (a new session, or only prompts).
 */
export async function formatOfSession(reader: SessionReader): Promise<SessionFormat | undefined> {
  for await (const event of reader.read({ afterSeq: 0 })) {
    const format = formatOfRecord(event);
    if (format !== undefined) return format;
  }
  return undefined;
}

/**
 * The format `connect()` noted in agentState when it created the session (`streamFormat`), for a
 * session whose records do not say yet; `undefined` when there is none (an agent of another kind).
 */
export function formatInAgentState(agentState: StateObject): SessionFormat | undefined {
  const noted = agentState.streamFormat;
  return noted === 'v1' || noted === 'v2' ? noted : undefined;
}
