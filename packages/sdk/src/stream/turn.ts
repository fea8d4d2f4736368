import type { TurnEndStatus } from '../protocol/sessionMessage.js';
import type { WriterCore } from './core.js';
import { Scope } from './scope.js';
import type { TurnState } from './turnState.js';
import type { Delivery } from './types.js';

/**
 * One agent turn, from `turn-start` to `turn-end` (docs/protocol.md, "turn-start", "turn-end").
 * It is the top-level scope of the turn's content.
 */
export class Turn extends Scope {
  /** Delivery of the `turn-start`. */
  readonly started: Delivery;
  private endDelivery: Delivery | undefined;

  /** @internal use `writer.turn()` */
  constructor(core: WriterCore, state: TurnState) {
    super(core, state, undefined, undefined, undefined);
    this.started = core.emit({ type: 'turn-start', role: 'agent', turn: state.turnId }).delivery;
  }

  /** The turn id. */
  get id(): string {
    return this.state.turnId;
  }

  /** True once `turn-end` has been appended. */
  get ended(): boolean {
    return this.state.ended;
  }

  /**
   * Aborted when the user asks to stop (the `abort` RPC), when {@link Turn.abort} is called, or when
   * the turn ends. Every permission request of the turn follows it (docs/permissions.md,
   * "Cancellation"); pass it to whatever else the turn waits on.
   */
  get signal(): AbortSignal {
    return this.state.stop.signal;
  }

  /**
   * Aborts {@link Turn.signal}: pending permission requests of the turn resolve `cancelled` and
   * their tools do not run. The turn stays open until {@link Turn.end}.
   */
  abort(reason: unknown = new Error('turn aborted')): void {
    this.state.stop.abort(reason);
  }

  /**
   * Appends `turn-end`. Open tool calls end first, deepest first, with error `cancelled` (which also
   * cancels their pending permission requests). Without a status, a turn that was stopped
   * ({@link Turn.abort}, the app's stop) ends `cancelled` and any other `completed`. Ending twice
   * returns the first delivery.
   */
  end(status: TurnEndStatus = this.signal.aborted ? 'cancelled' : 'completed'): Delivery {
    if (this.endDelivery) return this.endDelivery;
    for (const call of [...this.state.openCalls].reverse()) call.end({ error: 'cancelled' });
    this.core.announce({ kind: 'turn-closing', turn: this.state.turnId, status });
    this.endDelivery = this.core.emit({
      type: 'turn-end',
      role: 'agent',
      turn: this.state.turnId,
      status,
    }).delivery;
    this.state.ended = true;
    if (!this.state.stop.signal.aborted) this.state.stop.abort(new Error(`turn ended: ${status}`));
    return this.endDelivery;
  }
}
