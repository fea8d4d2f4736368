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
  /** Appends a batch (1 to 100 records) in order; idempotent per `localId`. */
  append(records: readonly OutgoingRecord[]): Promise<readonly AppendAck[]>;
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
}
