import { filter, map } from 'rxjs';
import type { Observable } from 'rxjs';
import type { AppendAck, OutgoingRecord, ReadPage, StoredRecord } from 'happy-session/ports';
import type { Transport } from 'happy-session';
import type { ViewerApi } from './api.js';
import type { ViewerSocket } from './updates.js';

/**
 * One session's records over the viewer's HTTP API and shared user-scoped socket, shaped as the
 * SDK's {@link Transport} so the SDK's own `SessionReader` does catch-up, gap filling and decoding.
 */
export class ViewerSessionTransport implements Transport {
  readonly records$: Observable<StoredRecord>;
  readonly resync$: Observable<void>;

  constructor(
    private readonly api: ViewerApi,
    socket: ViewerSocket,
    private readonly sessionId: string,
  ) {
    this.records$ = socket.hints$.pipe(
      filter((hint) => hint.sessionId === sessionId),
      map((hint) => hint.record),
    );
    this.resync$ = socket.connects$;
  }

  async append(records: readonly OutgoingRecord[]): Promise<readonly AppendAck[]> {
    return this.api.appendMessages(this.sessionId, records);
  }

  async read(afterSeq: number, options: { readonly limit?: number } = {}): Promise<ReadPage> {
    const page = await this.api.readMessages(this.sessionId, afterSeq, options.limit ?? 500);
    return {
      hasMore: page.hasMore,
      records: page.messages.map((m) => ({
        seq: m.seq,
        localId: m.localId,
        content: m.content.c,
        ...(m.id !== undefined ? { id: m.id } : {}),
        ...(m.createdAt !== undefined ? { createdAt: m.createdAt } : {}),
      })),
    };
  }
}
