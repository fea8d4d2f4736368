import type { TurnEndStatus } from '../protocol/sessionMessage.js';
import type { Turn } from './builders.js';
import { ScopeBuilder } from './scope.js';
import type { TurnWiring } from './scope.js';
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
    for (const call of [...this.wiring.state.openCalls].reverse()) call.end({ error: 'cancelled' });
    for (const stream of [...this.wiring.state.streams]) void stream.end();
    this.wiring.core.announce({ kind: 'turn-closing', turn: this.wiring.state.turnId, status });
    this.endDelivery = this.wiring.core.emit({
      type: 'turn-end',
      role: 'agent',
      turn: this.wiring.state.turnId,
      status,
    }).delivery;
    this.wiring.state.ended = true;
    if (!this.wiring.state.stop.signal.aborted)
      this.wiring.state.stop.abort(new Error(`turn ended: ${status}`));
    return this.endDelivery;
  }
}
