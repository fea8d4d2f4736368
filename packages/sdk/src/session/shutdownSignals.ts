import type { Logger } from '../logger.js';
import type { Session } from './session.js';

/** How `connect()` ends its session when the process is asked to stop (docs/transport.md, "Graceful shutdown"). */
export interface ShutdownOptions {
  /** How long the session may take to close on a signal, delivery included; default 5 s. */
  readonly deadlineMs?: number;
}

/** The default of {@link ShutdownOptions.deadlineMs}. */
export const DEFAULT_SHUTDOWN_DEADLINE_MS = 5_000;

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;
type StopSignal = (typeof SIGNALS)[number];
const EXIT_CODES: Record<StopSignal, number> = { SIGINT: 130, SIGTERM: 143 };

interface Watched {
  readonly session: Session;
  readonly deadlineMs: number;
  readonly logger: Logger;
}

/** Sessions of this process to close on SIGINT or SIGTERM: one set of listeners serves them all. */
const watched = new Set<Watched>();
let stopping: StopSignal | undefined;
const listeners = new Map<StopSignal, () => void>();

/**
 * Closes `session` when the process gets SIGINT or SIGTERM: its open turns end `cancelled` (what
 * the program still writes to them settles `stream.turn_stopped`), their pending permission
 * requests are cancelled, the writer delivers what it holds within the deadline, and the session
 * ends. While it closes, an exception or rejection the program leaves uncaught is logged and does
 * not stop the end records. Once every such session is closed the process exits 130 (SIGINT) or
 * 143 (SIGTERM), unless the program listens for that signal itself, which then decides; a second
 * signal while closing exits at once. Stops watching when the session closes
 * (docs/transport.md, "Graceful shutdown").
 */
export function closeOnShutdown(session: Session, options: ShutdownOptions & { logger: Logger }): void {
  const entry: Watched = {
    session,
    deadlineMs: options.deadlineMs ?? DEFAULT_SHUTDOWN_DEADLINE_MS,
    logger: options.logger,
  };
  watched.add(entry);
  for (const signal of SIGNALS) {
    if (listeners.has(signal)) continue;
    const listener = (): void => onSignal(signal);
    listeners.set(signal, listener);
    process.on(signal, listener);
  }
  void session.closed.then(() => {
    watched.delete(entry);
    if (watched.size === 0 && stopping === undefined) removeListeners();
  });
}

function onSignal(signal: StopSignal): void {
  if (stopping !== undefined) {
    // Asked twice: the person wants out now.
    process.exit(EXIT_CODES[signal]);
  }
  stopping = signal;
  const sessions = [...watched];
  const logger = sessions[0]?.logger;
  const release = holdUncaught(signal, logger);
  // Exits at the latest a moment after the longest deadline, whatever the closing waits on.
  const longest = Math.max(0, ...sessions.map((w) => w.deadlineMs));
  const hard = setTimeout(() => finish(signal, release), longest + HARD_EXIT_GRACE_MS);
  hard.unref();
  const closing = sessions.map(({ session, deadlineMs, logger: log }) => {
    log.warn(`${signal}: ending the session`, { sessionId: session.id, deadlineMs });
    return session.close({ deadlineMs }).catch((error: unknown) =>
      log.error(`${signal}: the session closed with records not stored`, {
        sessionId: session.id,
        error: String(error),
      }),
    );
  });
  void Promise.all(closing).then(() => {
    clearTimeout(hard);
    finish(signal, release);
  });
}

/** How long past the deadline the process waits for closing before it exits anyway. */
const HARD_EXIT_GRACE_MS = 1_000;

/** Ends the process as the signal would have (130 / 143), unless the program listens for it. */
function finish(signal: StopSignal, release: () => void): void {
  removeListeners();
  release();
  stopping = undefined;
  if (process.listenerCount(signal) === 0) process.exit(EXIT_CODES[signal]);
}

/**
 * While the sessions close, an error the program does not catch (its own code reacting to the
 * stop) is logged as one line instead of ending the process before the end records are stored.
 */
function holdUncaught(signal: StopSignal, logger: Logger | undefined): () => void {
  const onUncaught = (error: unknown): void => {
    logger?.error(`${signal}: the program threw while the session was closing`, {
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    });
  };
  process.on('uncaughtException', onUncaught);
  return () => process.off('uncaughtException', onUncaught);
}

function removeListeners(): void {
  for (const [signal, listener] of listeners) process.off(signal, listener);
  listeners.clear();
}
