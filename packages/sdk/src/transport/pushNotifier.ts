import type { HappyHttp } from './httpClient.js';
import type { PushEvent, PushNotifier } from '../ports/sessionState.js';

/**
 * Push notifications through `POST /v1/sessions/:id/push-event` (docs/wire.md §9 item 4). The
 * server decides whether a push is delivered or suppressed (an active app tab).
 */
export class HttpPushNotifier implements PushNotifier {
  constructor(
    private readonly http: HappyHttp,
    private readonly sessionId: string,
  ) {}

  /** Sends the event; rejects with a `transport.*` `SdkError` when the server refuses it. */
  async push(event: PushEvent): Promise<void> {
    await this.http.request('POST', `/v1/sessions/${encodeURIComponent(this.sessionId)}/push-event`, {
      kind: event.kind,
      title: event.title,
      body: event.body,
      ...(event.data ? { data: event.data } : {}),
    });
  }
}
