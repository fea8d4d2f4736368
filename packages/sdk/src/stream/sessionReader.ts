import { concatMap } from 'rxjs';
import type { Observable } from 'rxjs';
import { decryptRecord } from '../crypto/records.js';
import type { RecordKey } from '../crypto/records.js';
import type { CryptoFailureCode } from '../crypto/failure.js';
import { parseSessionMessage } from '../protocol/parse.js';
import { fromLegacyUserText } from '../protocol/legacyUserText.js';
import { legacyStamp } from './legacyStamp.js';
import type { ProtocolFailureCode, ProtocolIssue } from '../protocol/parse.js';
import type { SessionMessage } from '../protocol/sessionMessage.js';
import { recordFeed } from '../ports/recordFeed.js';
import { asyncIterableOf } from '../ports/asyncIterable.js';
import type { IterateOptions } from '../ports/asyncIterable.js';
import type { StoredRecord, Transport } from '../ports/transport.js';

/** Why a stored record could not be turned into a message. */
export type ReaderErrorCode = CryptoFailureCode | ProtocolFailureCode | 'stream.record_too_large';

/** A record that failed, with its position in the stream. */
export interface ReaderErrorEvent {
  readonly kind: 'error';
  readonly seq: number;
  readonly localId: string | null;
  readonly code: ReaderErrorCode;
  readonly message: string;
  readonly issues?: readonly ProtocolIssue[];
}

/** A record that decrypted and validated. */
export interface ReaderMessageEvent {
  readonly kind: 'message';
  readonly seq: number;
  readonly localId: string | null;
  readonly message: SessionMessage;
  /**
   * Set for a legacy user text record (what today's Happy app and `happy-session send` write,
   * docs/wire.md §6.1), read as a v2 user `text`: the record's `meta`.
   */
  readonly legacyMeta?: Readonly<Record<string, unknown>>;
}

/** What a reader yields per stored record: a message, or a typed error; the stream goes on either way. */
export type ReaderEvent = ReaderMessageEvent | ReaderErrorEvent;

/** Options of a {@link SessionReader}. */
export interface SessionReaderOptions {
  readonly transport: Transport;
  readonly key: RecordKey;
  /** Records whose ciphertext is larger than this are reported, not decrypted; default 1 MiB (the socket packet limit). */
  readonly maxRecordBytes?: number;
  /** Records per read call; default 500. */
  readonly pageSize?: number;
}

/**
 * Reads a session's stream: decrypts and validates each record into a typed v2 message. The
 * legacy user text today's app writes is read as a v2 user `text` (docs/wire.md §6.1). A record
 * that fails either step becomes a typed error event carrying its `seq`, and reading goes on.
 */
export class SessionReader {
  private readonly transport: Transport;
  private readonly key: RecordKey;
  private readonly maxRecordBytes: number;
  private readonly pageSize: number;

  constructor(options: SessionReaderOptions) {
    this.transport = options.transport;
    this.key = options.key;
    this.maxRecordBytes = options.maxRecordBytes ?? 1024 * 1024;
    this.pageSize = options.pageSize ?? 500;
  }

  /** Decodes one stored record. Never throws. */
  async decode(record: StoredRecord): Promise<ReaderEvent> {
    const position = { seq: record.seq, localId: record.localId };
    // base64 carries 3 bytes in 4 characters: check the size before decoding anything.
    if (typeof record.content !== 'string' || (record.content.length * 3) / 4 > this.maxRecordBytes) {
      return {
        kind: 'error',
        ...position,
        code: 'stream.record_too_large',
        message: `Record ${record.seq} is larger than ${this.maxRecordBytes} bytes; it was not decrypted.`,
      };
    }
    const decrypted = await decryptRecord(record.content, this.key);
    if (!decrypted.ok)
      return { kind: 'error', ...position, code: decrypted.error.code, message: decrypted.error.message };
    const parsed = parseSessionMessage(decrypted.value);
    if (!parsed.ok) {
      const legacy = fromLegacyUserText(decrypted.value, legacyStamp(record));
      if (legacy) return { kind: 'message', ...position, message: legacy.message, legacyMeta: legacy.meta };
      return {
        kind: 'error',
        ...position,
        code: parsed.error.code,
        message: parsed.error.message,
        issues: parsed.error.issues,
      };
    }
    return { kind: 'message', ...position, message: parsed.value };
  }

  /** Every record after `afterSeq` (default: from the start), in order, page by page. */
  async *read(options: { afterSeq?: number } = {}): AsyncGenerator<ReaderEvent> {
    let cursor = options.afterSeq ?? 0;
    for (;;) {
      const page = await this.transport.read(cursor, { limit: this.pageSize });
      for (const record of page.records) {
        if (record.seq <= cursor) continue;
        cursor = record.seq;
        yield await this.decode(record);
      }
      if (!page.hasMore || page.records.length === 0) return;
    }
  }

  /** Reads everything stored now into an array. */
  async readAll(options: { afterSeq?: number } = {}): Promise<ReaderEvent[]> {
    const events: ReaderEvent[] = [];
    for await (const event of this.read(options)) events.push(event);
    return events;
  }

  /** Reads everything stored now and keeps only the valid messages. */
  async messages(options: { afterSeq?: number } = {}): Promise<SessionMessage[]> {
    const events = await this.readAll(options);
    return events.flatMap((e) => (e.kind === 'message' ? [e.message] : []));
  }

  /**
   * Catch-up then live: every record after `afterSeq`, then new ones as they arrive, each exactly
   * once and in `seq` order, decoded. It follows the stream through {@link recordFeed}: a hint that
   * skips ahead triggers a read of what was missed, and a read that fails on the network or a
   * restarting server is tried again.
   */
  events$(options: { afterSeq?: number } = {}): Observable<ReaderEvent> {
    return recordFeed(this.transport, { afterSeq: options.afterSeq ?? 0, pageSize: this.pageSize }).pipe(
      concatMap((record) => this.decode(record)),
    );
  }

  /**
   * {@link SessionReader.events$} as an async iterable: every record after `afterSeq`, then live,
   * until `signal` aborts: `for await (const event of reader.events({ signal })) { … }`.
   */
  events(options: { afterSeq?: number } & IterateOptions = {}): AsyncGenerator<ReaderEvent> {
    return asyncIterableOf(
      this.events$(options.afterSeq !== undefined ? { afterSeq: options.afterSeq } : {}),
      options.signal ? { signal: options.signal } : {},
    );
  }
}
