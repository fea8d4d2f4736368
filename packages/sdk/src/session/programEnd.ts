import type { Logger } from '../logger.js';
import type { Session } from './session.js';
import { isWaitedOn, whenClosed } from './session.js';

/** What happens to a session when the program's code ends. */
export interface ProgramEndOptions {
  /** Close it then (`connect()`'s default); false leaves it to the program (`shutdownSignals: false`). */
  readonly close: boolean;
  /** How long closing may take, delivery included (`shutdownSignals.deadlineMs`). */
  readonly deadlineMs: number;
  readonly logger: Logger;
}

/**
 * How often a process whose code has ended looks again at the sessions it may still be waiting on
 * (a prompt loop, a permission request, records in flight): the socket does not keep the process
 * alive, so this timer does, and the next look comes once it fires.
 */
export const PROGRAM_END_LOOK_MS = 500;

/** The open sessions `connect()` made in this process. */
const open = new Map<Session, ProgramEndOptions>();
let installed = false;

/**
 * Ends `session` when the program's code ends without closing it (docs/recovery.md, "When the
 * program's code ends"). A session's socket and timers do not keep Node's event loop alive, so when
 * nothing else does, Node emits `beforeExit`. Then each session the program may still be waiting
 * on (see `Session.closed`, `prompts()`) keeps the process alive and is looked at again
 * {@link PROGRAM_END_LOOK_MS} later; every other one is closed as `close()` closes it (its open turns end
 * `cancelled`, what it holds is delivered within the deadline, the session ends), after which the
 * process exits with the code the program set (0 by default), or 1 when records were not stored.
 */
export function closeAtProgramEnd(session: Session, options: ProgramEndOptions): void {
  open.set(session, options);
  if (!installed) {
    installed = true;
    process.on('beforeExit', onBeforeExit);
  }
  void whenClosed(session).then(() => {
    open.delete(session);
    if (open.size === 0 && installed) {
      installed = false;
      process.off('beforeExit', onBeforeExit);
    }
  });
}

function onBeforeExit(): void {
  let waiting = false;
  for (const [session, { close, deadlineMs, logger }] of open) {
    if (isWaitedOn(session)) {
      waiting = true;
      continue;
    }
    if (!close) continue;
    logger.info("the program's code ended without session.close(): ending the session", {
      sessionId: session.id,
    });
    // close() keeps the process alive until the session has ended.
    session.close({ deadlineMs }).catch((error: unknown) => {
      logger.error('the session closed with records not stored', {
        sessionId: session.id,
        error: String(error),
      });
      // What the program wrote was lost: its exit says so, unless it chose a failing code itself.
      if (!process.exitCode) process.exitCode = 1;
    });
  }
  if (waiting) setTimeout(() => undefined, PROGRAM_END_LOOK_MS);
}
