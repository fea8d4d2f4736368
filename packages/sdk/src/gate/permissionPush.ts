import type { Observable, Subscription } from 'rxjs';
import type { Logger } from '../logger.js';
import type { GatedCall } from '../stream/gatePorts.js';
import { DelayedPush } from '../ports/delayedPush.js';
import type { PushNotifier } from '../ports/sessionState.js';
import type { RequestEvent } from './gateEvents.js';

/**
 * The `permission` push of each request (docs/wire.md §7.3, §9 item 4), sent only when the request
 * is still waiting after a delay ({@link DelayedPush}).
 */
export class PermissionPush {
  private readonly delayed: DelayedPush;

  constructor(
    push: PushNotifier,
    private readonly options: { delayMs: number; sessionTitle: string | undefined; logger: Logger },
  ) {
    this.delayed = new DelayedPush(push, options.delayMs, options.logger);
  }

  /** Follows the gate's events: a push is scheduled for each request and dropped when it settles first. */
  follow(events$: Observable<RequestEvent>): Subscription {
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
    this.delayed.cancelAll();
  }

  /** Schedules the push of `call`'s request. */
  schedule(call: GatedCall): void {
    this.delayed.schedule(call.callId, {
      kind: 'permission',
      title: 'Permission request',
      body: this.options.sessionTitle ?? 'Session',
      data: { requestId: call.callId, tool: call.toolName, type: 'permission_request' },
    });
  }

  /** Drops the push of a request that is no longer waiting. */
  cancel(callId: string): void {
    this.delayed.cancel(callId);
  }
}
