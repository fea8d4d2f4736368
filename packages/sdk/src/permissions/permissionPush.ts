import type { Observable, Subscription } from 'rxjs';
import type { Logger } from '../logger.js';
import type { GatedCall } from '../stream/gatePorts.js';
import type { PushNotifier } from '../ports/sessionState.js';
import type { BrokerEvent } from './broker.js';

/**
 * The `permission` push of each request (docs/wire.md §7.3, §9 item 4), sent only when the request
 * is still waiting after a delay: a request answered sooner (a rule re-evaluation, a watching
 * client, the local program) would otherwise buzz a phone for nothing.
 */
export class PermissionPush {
  private readonly timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly push: PushNotifier,
    private readonly options: { delayMs: number; sessionTitle: string | undefined; logger: Logger },
  ) {}

  /** Follows the broker: a push is scheduled for each request and dropped when it settles first. */
  follow(events$: Observable<BrokerEvent>): Subscription {
    return events$.subscribe({
      next: (event) => {
        if (event.kind === 'requested') this.schedule(event.request.call);
        else this.cancel(event.request.call.callId);
      },
      complete: () => this.cancelAll(),
    });
  }

  /** Drops every push still waiting. */
  cancelAll(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }

  /** Schedules the push of `call`'s request. */
  schedule(call: GatedCall): void {
    const timer = setTimeout(() => {
      this.timers.delete(call.callId);
      this.send(call);
    }, this.options.delayMs);
    this.timers.set(call.callId, timer);
  }

  /** Drops the push of a request that is no longer waiting. */
  cancel(callId: string): void {
    clearTimeout(this.timers.get(callId));
    this.timers.delete(callId);
  }

  private send(call: GatedCall): void {
    this.push
      .push({
        kind: 'permission',
        title: 'Permission request',
        body: this.options.sessionTitle ?? 'Session',
        data: { requestId: call.callId, tool: call.toolName, type: 'permission_request' },
      })
      .catch((error: unknown) =>
        this.options.logger.warn('permission push failed', { error: String(error) }),
      );
  }
}
