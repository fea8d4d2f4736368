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
 * Closes `session` when the process gets SIGINT or SIGTERM: its open turns end `cancelled`, their
 * pending permission requests are cancelled, the writer delivers what it holds within the
 * deadline, and the session ends. Once every such session is closed, the signal is raised again
 * if nothing else listens for it, so the process ends as it would have; a second signal while
 * closing exits at once (code 130 or 143). Stops watching when the session closes.
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
  const closing = [...watched].map(({ session, deadlineMs, logger }) => {
    logger.warn(`${signal}: ending the session`, { sessionId: session.id, deadlineMs });
    return session.close({ deadlineMs }).catch((error: unknown) =>
      logger.error(`${signal}: the session closed with records not stored`, {
        sessionId: session.id,
        error: String(error),
      }),
    );
  });
  void Promise.all(closing).then(() => {
    removeListeners();
    // The default action of the signal ends the process; a program with listeners of its own decides.
    if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    stopping = undefined;
  });
}

function removeListeners(): void {
  for (const [signal, listener] of listeners) process.off(signal, listener);
  listeners.clear();
}
