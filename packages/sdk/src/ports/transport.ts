import type { TailCheckPacer } from './tailCheckPacer.js';
import type { Observable } from 'rxjs';

/** A record on its way to the server: ciphertext plus the idempotency key (docs/wire.md §5.2). */
export interface OutgoingRecord {
  /** Stable per logical message; a retry with the same `localId` never stores a second row. */
  readonly localId: string;
  /** Standard base64 of the encrypted record. */
  readonly content: string;
}

/** What the server answered for one appended record. */
export interface AppendAck {
  readonly localId: string;
  /** Per-session sequence number, starting at 1. */
  readonly seq: number;
  /** The server's row id, when it has one. */
  readonly id?: string;
}

/** A stored record as read back: the server only ever holds ciphertext. */
export interface StoredRecord {
  readonly seq: number;
  readonly localId: string | null;
  /** Standard base64 of the encrypted record. */
  readonly content: string;
  readonly id?: string;
  readonly createdAt?: number;
}

/** How an append is carried out (see {@link Transport.append}). */
export interface AppendOptions {
  /**
   * Called once when the request has left the process (its bytes are written to the connection),
   * before the answer; a transport that cannot tell calls it when it has handed the request on.
   * Only a transport with {@link Transport.reportsSent} is expected to call it.
   */
  readonly onSent?: () => void;
}

/** One page of records after a cursor, in ascending `seq`. */
export interface ReadPage {
  readonly records: readonly StoredRecord[];
  readonly hasMore: boolean;
}

/**
 * Carries one session's encrypted records. Implementations: `MemoryTransport` (in process) and
 * `HappyServerTransport` (v3 HTTP plus socket.io hints).
 *
 * Errors are `SdkError`s with `transport.*` codes; {@link isRetryableTransportError} tells the outbox
 * which ones to retry.
 */
export interface Transport {
  /**
   * True when {@link Transport.append} calls `options.onSent` once its request has left. The
   * outbox then seals the next batch only after that, so the work overlaps the request in flight
   * instead of holding back a request that is written a turn of the event loop later
   * (docs/performance.md, "Write throughput"). Without it, the outbox goes on as soon as
   * `append()` is called.
   */
  readonly reportsSent?: boolean;
  /** Appends a batch (1 to 100 records) in order; idempotent per `localId`. */
  append(records: readonly OutgoingRecord[], options?: AppendOptions): Promise<readonly AppendAck[]>;
  /** Reads records with `seq > afterSeq`, ascending. */
  read(afterSeq: number, options?: { readonly limit?: number }): Promise<ReadPage>;
  /**
   * New records as they are stored, including this client's own. A hint only: it may skip records
   * (after a reconnect, say), so readers catch up with {@link Transport.read} on any gap.
   */
  readonly records$: Observable<StoredRecord>;
  /**
   * Emits when hints may have been missed (after a reconnect): readers then catch up from their
   * last `seq` (docs/wire.md §5.2, "On every (re)connect, fetch forward").
   */
  readonly resync$?: Observable<void>;
  /**
   * Paces the idle tail checks of every feed that reads through this transport's connection, with
   * those of the other sessions sharing it (docs/transport.md, "Live reading"). Without it, each
   * feed checks on its own timer.
   */
  readonly tailCheckPacer?: TailCheckPacer;
}
