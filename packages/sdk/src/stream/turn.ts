import { isSdkError } from '../errors.js';
import type { TurnEndStatus } from '../protocol/sessionMessage.js';
import type { Turn } from './builders.js';
import { ScopeBuilder } from './scope.js';
import type { TurnWiring } from './scope.js';
import { handledRejection } from './stoppedTurn.js';
import type { Delivery } from './types.js';

/** A {@link Turn}: the top-level scope of the turn's content. Made by `writer.turn()`. */
export class TurnBuilder extends ScopeBuilder implements Turn {
  readonly started: Delivery;
  private endDelivery: Delivery | undefined;

  constructor(wiring: TurnWiring) {
    super(wiring, undefined, undefined, undefined);
    this.started = wiring.core.emit({
      type: 'turn-start',
      role: 'agent',
      turn: wiring.state.turnId,
    }).delivery;
  }

  get id(): string {
    return this.wiring.state.turnId;
  }

  get ended(): boolean {
    return this.wiring.state.ended;
  }

  get signal(): AbortSignal {
    return this.wiring.state.stop.signal;
  }

  abort(reason: unknown = new Error('turn aborted')): void {
    this.wiring.state.stop.abort(reason);
  }

  end(status: TurnEndStatus = this.signal.aborted ? 'cancelled' : 'completed'): Delivery {
    if (this.endDelivery) return this.endDelivery;
    const { state, core } = this.wiring;
    for (const call of [...state.openCalls].reverse()) call.end({ error: 'cancelled' });
    for (const stream of [...state.streams]) void stream.end();
    core.announce({ kind: 'turn-closing', turn: state.turnId, status });
    try {
      this.endDelivery = core.emit({ type: 'turn-end', role: 'agent', turn: state.turnId, status }).delivery;
    } catch (error) {
      // Only a writer hook (the v1 encoder) can refuse a turn-end; the turn is over all the same.
      core.logger.error('the turn-end could not be appended', { turn: state.turnId, error: String(error) });
      this.endDelivery = handledRejection(error);
    }
    state.ended = true;
    if (!state.stop.signal.aborted) state.stop.abort(new Error(`turn ended: ${status}`));
    return this.endDelivery;
  }

  /**
   * Ends the turn `cancelled` because it was stopped from outside the program (the writer closing:
   * `session.close()`, SIGINT or SIGTERM through `connect()`). Unlike {@link TurnBuilder.end}, what
   * the program writes to the turn afterwards is not appended and settles `stream.turn_stopped`
   * instead of throwing (docs/architecture.md, "Builders").
   */
  stop(reason: unknown = new Error('turn stopped')): Delivery {
    if (this.endDelivery) return this.endDelivery;
    // What was written before the stop goes in first: what the turn's abort listeners flush as it
    // aborts, and what its text streams hold.
    if (!this.signal.aborted) this.abort(reason);
    for (const stream of [...this.wiring.state.streams]) void stream.end();
    this.wiring.state.stopped = true;
    if (isSdkError(reason) && reason.code === 'session.taken_over') this.wiring.state.stoppedBy = reason;
    return this.end('cancelled');
  }
}
