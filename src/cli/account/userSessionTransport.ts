import { Subject } from 'rxjs';
import type { Observable } from 'rxjs';
import type { Socket } from 'socket.io-client';
import type { HappyHttp } from '../../transport/httpClient.js';
import type {
  AppendAck,
  OutgoingRecord,
  ReadPage,
  StoredRecord,
  Transport,
} from '../../transport/transport.js';
import {
  AppendResponseSchema,
  NewMessageBodySchema,
  ReadResponseSchema,
  expectShape,
} from '../../transport/wireShapes.js';

const MAX_PAGE = 500;

/**
 * One session's records seen from the user's side, as the app sees them: v3 HTTP to read and
 * append (happy-wire §5.2), live hints from the account's user-scoped socket (`update`
 * `new-message` for this session, §2.3) and a `resync$` after every reconnect. Unlike the agent's
 * `HappyServerTransport` it sends no heartbeat and ends nothing when it closes.
 */
export class UserSessionTransport implements Transport {
  private readonly recordsSubject = new Subject<StoredRecord>();
  private readonly resyncSubject = new Subject<void>();
  private readonly onUpdate = (update: unknown): void => this.take(update);
  private readonly onConnect = (): void => this.resyncSubject.next();

  readonly records$: Observable<StoredRecord> = this.recordsSubject.asObservable();
  readonly resync$: Observable<void> = this.resyncSubject.asObservable();

  constructor(
    private readonly http: HappyHttp,
    private readonly socket: Socket,
    readonly sessionId: string,
  ) {
    socket.on('update', this.onUpdate);
    // The socket is connected already, so every later `connect` is a reconnect.
    socket.on('connect', this.onConnect);
  }

  async append(records: readonly OutgoingRecord[]): Promise<readonly AppendAck[]> {
    const path = `/v3/sessions/${encodeURIComponent(this.sessionId)}/messages`;
    const answer = await this.http.request<unknown>('POST', path, {
      messages: records.map((r) => ({ content: r.content, localId: r.localId })),
    });
    return expectShape(AppendResponseSchema, answer, `POST ${path}`).messages.flatMap((m) =>
      m.localId === null ? [] : [{ localId: m.localId, seq: m.seq, id: m.id }],
    );
  }

  async read(afterSeq: number, options: { readonly limit?: number } = {}): Promise<ReadPage> {
    const limit = Math.min(Math.max(Math.floor(options.limit ?? 100), 1), MAX_PAGE);
    const path = `/v3/sessions/${encodeURIComponent(this.sessionId)}/messages?after_seq=${Math.max(0, Math.floor(afterSeq))}&limit=${limit}`;
    const page = expectShape(
      ReadResponseSchema,
      await this.http.request<unknown>('GET', path),
      `GET ${path}`,
    );
    return {
      records: page.messages.map((m) => ({
        seq: m.seq,
        localId: m.localId,
        content: m.content.c,
        id: m.id,
        createdAt: m.createdAt,
      })),
      hasMore: page.hasMore,
    };
  }

  /** Stops listening to the socket (the socket itself belongs to the caller). */
  close(): void {
    this.socket.off('update', this.onUpdate);
    this.socket.off('connect', this.onConnect);
    this.recordsSubject.complete();
    this.resyncSubject.complete();
  }

  private take(update: unknown): void {
    const body = (update as { body?: unknown } | null)?.body;
    const parsed = NewMessageBodySchema.safeParse(body);
    if (!parsed.success || parsed.data.sid !== this.sessionId) return;
    const m = parsed.data.message;
    this.recordsSubject.next({
      seq: m.seq,
      localId: m.localId,
      content: m.content.c,
      id: m.id,
      createdAt: m.createdAt,
    });
  }
}
