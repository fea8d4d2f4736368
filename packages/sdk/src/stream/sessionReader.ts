import { concatMap } from 'rxjs';
import type { Observable } from 'rxjs';
import { decryptRecord } from '../crypto/records.js';
import type { RecordKey } from '../crypto/records.js';
import type { CryptoFailureCode } from '../crypto/failure.js';
import { parseSessionMessage } from '../protocol/parse.js';
import type { ProtocolFailureCode, ProtocolIssue } from '../protocol/parse.js';
import type { SessionMessage } from '../protocol/sessionMessage.js';
import { decodeV1Record, isV1Record } from '../protocol/v1/fromV1.js';
import type { V1Decoded, LostField } from '../protocol/v1/fromV1.js';
import type { V1ParseFailure } from '../protocol/v1/parse.js';
import { recordFeed } from '../ports/recordFeed.js';
import { asyncIterableOf } from '../ports/asyncIterable.js';
import type { IterateOptions } from '../ports/asyncIterable.js';
import { MAX_RECORD_BYTES, storedRecordBytes } from './recordSize.js';
import type { StoredRecord, Transport } from '../ports/transport.js';

/** Why a stored record could not be turned into a message. */
export type ReaderErrorCode =
  CryptoFailureCode | ProtocolFailureCode | V1ParseFailure['code'] | 'stream.too_large';

/**
 * The form a record was stored in: a v2 message, a v1 session record (`format: 'v1'`, the Happy
 * CLI), or a legacy record (today's app's user text, the v1 encoder's tool results and status lines).
 */
export type RecordFormat = 'v2' | 'v1' | 'legacy';

/** A record that failed, with its position in the stream. */
export interface ReaderErrorEvent {
  readonly kind: 'error';
  readonly seq: number;
  readonly localId: string | null;
  readonly code: ReaderErrorCode;
  readonly message: string;
  readonly issues?: readonly ProtocolIssue[];
}

/** A record that decrypted and validated, read back as v2. */
export interface ReaderMessageEvent {
  readonly kind: 'message';
  readonly seq: number;
  readonly localId: string | null;
  readonly message: SessionMessage;
  /** The form the record was stored in. */
  readonly format: RecordFormat;
  /**
   * v2 fields the record's format cannot carry, so `message` may lack them (docs/v1-format.md,
   * "Reading v1 back"); empty for v2.
   */
  readonly lost: readonly LostField[];
}

/** A valid v1 or legacy record that stands for no v2 message (a subagent marker, say). */
export interface ReaderSkippedEvent {
  readonly kind: 'skipped';
  readonly seq: number;
  readonly localId: string | null;
  /** The form the record was stored in. */
  readonly format: Exclude<RecordFormat, 'v2'>;
  /** What the record was. */
  readonly reason: string;
}

/**
 * What a reader yields per stored record: a message, a record with no v2 equivalent, or a typed
 * error; the stream goes on either way.
 */
export type ReaderEvent = ReaderMessageEvent | ReaderSkippedEvent | ReaderErrorEvent;

/** Options of a {@link SessionReader}. */
export interface SessionReaderOptions {
  readonly transport: Transport;
  readonly key: RecordKey;
  /**
   * Records whose ciphertext is larger than this are reported (`stream.too_large`), not
   * decrypted; default `MAX_RECORD_BYTES` (1 MiB), the most the SDK's writer writes, so a reader
   * with the default reads every record a writer of the SDK stored (docs/transport.md, "Size limit").
   */
  readonly maxRecordBytes?: number;
  /** Records per read call; default 500. */
  readonly pageSize?: number;
}

/**
 * Reads a session's stream: decrypts and validates each record into a typed v2 message. Records in
 * the v1 format (`connect({format: 'v1'})`, the Happy CLI) and the legacy records today's app writes
 * are read back as v2 too, each saying what its format could not keep. A record that fails either
 * step becomes a typed error event carrying its `seq`, and reading goes on.
 */
export class SessionReader {
  private readonly transport: Transport;
  private readonly key: RecordKey;
  private readonly maxRecordBytes: number;
  private readonly pageSize: number;

  constructor(options: SessionReaderOptions) {
    this.transport = options.transport;
    this.key = options.key;
    this.maxRecordBytes = options.maxRecordBytes ?? MAX_RECORD_BYTES;
    this.pageSize = options.pageSize ?? 500;
  }

  /** Decodes one stored record. Never throws. */
  async decode(record: StoredRecord): Promise<ReaderEvent> {
    const position = { seq: record.seq, localId: record.localId };
    // base64 carries 3 bytes in 4 characters: check the size before decoding anything.
    if (typeof record.content !== 'string' || storedRecordBytes(record.content) > this.maxRecordBytes) {
      return {
        kind: 'error',
        ...position,
        code: 'stream.too_large',
        message: `Record ${record.seq} is larger than ${this.maxRecordBytes} bytes; it was not decrypted.`,
      };
    }
    const decrypted = await decryptRecord(record.content, this.key);
    if (!decrypted.ok)
      return { kind: 'error', ...position, code: decrypted.error.code, message: decrypted.error.message };
    const value = decrypted.value;
    const fromV1 = isV1Record(value)
      ? decodeV1Record(value, {
          ...position,
          ...(record.createdAt !== undefined ? { createdAt: record.createdAt } : {}),
        })
      : undefined;
    if (fromV1)
      return v1Event(fromV1, position, (value as { role?: unknown }).role === 'session' ? 'v1' : 'legacy');
    const parsed = parseSessionMessage(value);
    if (!parsed.ok) {
      return {
        kind: 'error',
        ...position,
        code: parsed.error.code,
        message: parsed.error.message,
        issues: parsed.error.issues,
      };
    }
    return { kind: 'message', ...position, message: parsed.value, format: 'v2', lost: [] };
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

function v1Event(
  decoded: V1Decoded,
  position: { seq: number; localId: string | null },
  format: 'v1' | 'legacy',
): ReaderEvent {
  switch (decoded.kind) {
    case 'message':
      return { kind: 'message', ...position, message: decoded.message, format, lost: decoded.lost };
    case 'skipped':
      return { kind: 'skipped', ...position, format, reason: decoded.reason };
    case 'error':
      return {
        kind: 'error',
        ...position,
        code: decoded.failure.code,
        message: decoded.failure.message,
        issues: decoded.failure.issues,
      };
  }
}
