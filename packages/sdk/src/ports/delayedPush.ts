import type { Logger } from '../logger.js';
import type { PushEvent, PushNotifier } from './sessionState.js';

/**
 * A push sent only when what it announces is still waiting after a delay (docs/wire.md §9 item 4):
 * a permission request or a question answered sooner (by a watching client, the local program)
 * would otherwise buzz a phone for nothing. Keyed by what it announces.
 */
export class DelayedPush {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly push: PushNotifier,
    private readonly delayMs: number,
    private readonly logger: Logger,
  ) {}

  /** Sends `event` after the delay unless {@link DelayedPush.cancel} drops it first. */
  schedule(key: string, event: PushEvent): void {
    const timer = setTimeout(() => {
      this.timers.delete(key);
      this.push
        .push(event)
        .catch((error: unknown) => this.logger.warn(`${event.kind} push failed`, { error: String(error) }));
    }, this.delayMs);
    this.timers.set(key, timer);
  }

  /** Drops the push of what is no longer waiting. */
  cancel(key: string): void {
    clearTimeout(this.timers.get(key));
    this.timers.delete(key);
  }

  /** Drops every push still waiting. */
  cancelAll(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
