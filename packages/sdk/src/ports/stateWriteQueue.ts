import type { Logger } from '../logger.js';
import type { SessionStateStore, StateObject } from './sessionState.js';

/**
 * Queues changes to agentState for a mirror of it (the permission gate's requests, the question
 * desk's forms): changes queued while a write is in flight go out together as one write, so a
 * burst costs a few round trips, not one each, and their order is kept. The stream stays the source
 * of truth: a failed write is logged, never thrown.
 */
export class StateWriteQueue {
  private readonly queue: Array<(state: StateObject) => StateObject> = [];
  private draining: Promise<void> | undefined;

  constructor(
    private readonly state: SessionStateStore,
    private readonly logger: Logger,
  ) {}

  /** Queues a change; resolves when it (and every change before it) has been written or given up. */
  update(fn: (state: StateObject) => StateObject): Promise<void> {
    this.queue.push(fn);
    this.draining ??= this.drain();
    return this.draining;
  }

  /** Resolves when every write so far has settled. */
  settled(): Promise<void> {
    return this.draining ?? Promise.resolve();
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const changes = this.queue.splice(0);
      try {
        await this.state.updateAgentState((current) =>
          changes.reduce((state, change) => change(state), current),
        );
      } catch (error) {
        this.logger.warn('agentState mirror write failed', { error: String(error) });
      }
    }
    this.draining = undefined;
  }
}
