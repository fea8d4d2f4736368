import { inspect } from 'node:util';
import type { Logger } from '../logger.js';
import { RELAYED_SIGNAL_WINDOW_MS } from './relayedSignal.js';
import type { Session } from './session.js';
import { whenClosed } from './session.js';

/** How `connect()` ends its session when the process is asked to stop (docs/transport.md, "Graceful shutdown"). */
export interface ShutdownOptions {
  /**
   * How long the session may take to close on a signal, or when the program's code ends without
   * `close()`, delivery included; default 5 s.
   */
  readonly deadlineMs?: number;
}

/** The default of {@link ShutdownOptions.deadlineMs}. */
export const DEFAULT_SHUTDOWN_DEADLINE_MS = 5_000;

const SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
type StopSignal = (typeof SIGNALS)[number];
/** 128 + the signal's number, what a shell shows for a process the signal ended. */
const EXIT_CODES: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };
/** What stopped the process: a signal, or an error nobody caught. */
type StopCause = StopSignal | 'uncaught';

interface Watched {
  readonly session: Session;
  readonly deadlineMs: number;
  readonly logger: Logger;
}

/** Sessions of this process to close on a stop: one set of listeners serves them all. */
const watched = new Set<Watched>();
let stopping: { cause: StopCause; at: number } | undefined;
const signalListeners = new Map<StopSignal, () => void>();
let installed = false;

/**
 * Closes `session` on every clean way out of the process: SIGINT, SIGTERM and SIGHUP (a closed
 * terminal), and an exception or rejection the program leaves uncaught. Its open turns end
 * `cancelled` (what the program still writes to them settles `stream.turn_stopped`), their pending
 * permission requests are cancelled, the writer delivers what it holds within the deadline, and the
 * session ends. While it closes, an exception or rejection the program leaves uncaught is logged
 * and does not stop the end records. Once every such session is closed the process exits 130
 * (SIGINT), 143 (SIGTERM), 129 (SIGHUP) or 1 (uncaught), unless the program listens for that signal
 * (or for `uncaughtException`) itself, which then decides. The same signal relayed by a parent
 * within {@link RELAYED_SIGNAL_WINDOW_MS} is the same stop; a signal after that exits at once.
 * Stops watching when the session closes (docs/transport.md, "Graceful shutdown").
 */
export function closeOnShutdown(session: Session, options: ShutdownOptions & { logger: Logger }): void {
  const entry: Watched = {
    session,
    deadlineMs: options.deadlineMs ?? DEFAULT_SHUTDOWN_DEADLINE_MS,
    logger: options.logger,
  };
  watched.add(entry);
  install();
  void whenClosed(session).then(() => {
    watched.delete(entry);
    if (watched.size === 0 && stopping === undefined) uninstall();
  });
}

function install(): void {
  if (installed) return;
  installed = true;
  for (const signal of SIGNALS) {
    const listener = (): void => onSignal(signal);
    signalListeners.set(signal, listener);
    process.on(signal, listener);
  }
  process.on('uncaughtException', onUncaught);
}

function uninstall(): void {
  for (const [signal, listener] of signalListeners) process.off(signal, listener);
  signalListeners.clear();
  process.off('uncaughtException', onUncaught);
  installed = false;
}

function onSignal(signal: StopSignal): void {
  if (stopping !== undefined) {
    if (Date.now() - stopping.at < RELAYED_SIGNAL_WINDOW_MS) {
      [...watched][0]?.logger.debug(`${signal} again: relayed by a parent process, the same stop`);
      return;
    }
    // Asked again: the person wants out now.
    process.exit(EXIT_CODES[signal]);
  }
  stop(signal);
}

/**
 * An error nobody catches: without a listener of the program's own, Node would print it and exit 1
 * before the session ends. Printed as Node prints it, then the sessions close and the process exits
 * 1. A program with its own `uncaughtException` listener decides itself, and the session stays.
 */
function onUncaught(error: unknown): void {
  if (stopping !== undefined) return; // holdUncaught logs it.
  const others = process.listeners('uncaughtException').filter((l) => l !== onUncaught);
  if (others.length > 0) return;
  process.stderr.write(`${inspect(error)}\n\nThe session ends before the process exits 1.\n`);
  process.exitCode = 1;
  stop('uncaught');
}

function stop(cause: StopCause): void {
  stopping = { cause, at: Date.now() };
  const sessions = [...watched];
  const logger = sessions[0]?.logger;
  const release = holdUncaught(cause, logger);
  // Exits at the latest a moment after the longest deadline, whatever the closing waits on.
  const longest = Math.max(0, ...sessions.map((w) => w.deadlineMs));
  const hard = setTimeout(() => finish(cause, release), longest + HARD_EXIT_GRACE_MS);
  hard.unref();
  const closing = sessions.map(({ session, deadlineMs, logger: log }) => {
    log.warn(`${cause}: ending the session`, { sessionId: session.id, deadlineMs });
    return session.close({ deadlineMs }).catch((error: unknown) =>
      log.error(`${cause}: the session closed with records not stored`, {
        sessionId: session.id,
        error: String(error),
      }),
    );
  });
  void Promise.all(closing).then(() => {
    clearTimeout(hard);
    finish(cause, release);
  });
}

/** How long past the deadline the process waits for closing before it exits anyway. */
const HARD_EXIT_GRACE_MS = 1_000;

/**
 * Ends the process as the cause would have: 130 / 143 / 129 for a signal (unless the program
 * listens for it), 1 after an uncaught error.
 */
function finish(cause: StopCause, release: () => void): void {
  uninstall();
  release();
  stopping = undefined;
  if (cause === 'uncaught') process.exit(1);
  if (process.listenerCount(cause) === 0) process.exit(EXIT_CODES[cause]);
}

/**
 * While the sessions close, an error the program does not catch (its own code reacting to the
 * stop) is logged as one line instead of ending the process before the end records are stored.
 */
function holdUncaught(cause: StopCause, logger: Logger | undefined): () => void {
  const onError = (error: unknown): void => {
    logger?.error(`${cause}: the program threw while the session was closing`, {
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
  };
  process.on('uncaughtException', onError);
  return () => process.off('uncaughtException', onError);
}
