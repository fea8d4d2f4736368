import { SdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { TurnState } from './turnState.js';

/**
 * A stop is not a crash (docs/architecture.md, "Builders"): once the person stopped a turn (the
 * session closed, SIGINT or SIGTERM through `connect()`), what the program still writes to it is
 * not appended, and settles with this outcome instead of throwing into the program.
 */
export function turnStopped(turnId: string, what: string): SdkError {
  return new SdkError('stream.turn_stopped', `Turn ${turnId} was stopped; the ${what} was not appended.`, {
    hint: 'nothing to fix: the person stopped the turn (or the session is closing); check turn.signal to stop work early',
    details: { turn: turnId, what },
  });
}

/** A promise that rejects with `error`, marked handled: one left unawaited never crashes the program. */
export function handledRejection<T>(error: unknown): Promise<T> {
  const rejected = Promise.reject(error as Error);
  rejected.catch(() => undefined);
  return rejected;
}

/** What a write to a stopped turn gets: nothing appended, `stream.turn_stopped`, one logger line per turn. */
export function refuseStopped<T>(state: TurnState, logger: Logger, what: string): Promise<T> {
  if (!state.stopNoted) {
    state.stopNoted = true;
    logger.warn('the turn was stopped: what is still written to it is not appended', {
      turn: state.turnId,
      first: what,
    });
  }
  return handledRejection(state.stoppedBy ?? turnStopped(state.turnId, what));
}
