import { Subject } from 'rxjs';
import { SdkError } from '../errors.js';
import type {
  AppendAck,
  AppendOptions,
  OutgoingRecord,
  ReadPage,
  StoredRecord,
  Transport,
} from './transport.js';

const MAX_BATCH = 100;
const MAX_PAGE = 500;

/**
 * An in-process transport for one session with the storage rules of the Happy server: ciphertext
 * only, per-session `seq` from 1, `localId` idempotency within a batch and across batches,
 * batches of 1 to 100 (docs/wire.md §5.2). Share one instance between a writer and its readers.
 */
export class MemoryTransport implements Transport {
  private readonly stored: StoredRecord[] = [];
  private readonly byLocalId = new Map<string, StoredRecord>();
  private readonly subject = new Subject<StoredRecord>();
  readonly records$ = this.subject.asObservable();
  /** Calls `onSent` at once: in process, a request is "sent" when it is made. */
  readonly reportsSent = true;

  /** Every stored record, in `seq` order (ciphertext only). */
  get records(): readonly StoredRecord[] {
    return this.stored;
  }

  async append(
    records: readonly OutgoingRecord[],
    options: AppendOptions = {},
  ): Promise<readonly AppendAck[]> {
    options.onSent?.();
    if (records.length < 1 || records.length > MAX_BATCH) {
      throw new SdkError(
        'transport.rejected',
        `A batch holds 1 to ${MAX_BATCH} records, not ${records.length}.`,
        {
          details: { status: 400 },
        },
      );
    }
    const acks: AppendAck[] = [];
    const fresh: StoredRecord[] = [];
    for (const record of records) {
      if (typeof record.localId !== 'string' || record.localId === '' || typeof record.content !== 'string') {
        throw new SdkError(
          'transport.rejected',
          'Each record needs a non-empty localId and string content.',
          {
            details: { status: 400 },
          },
        );
      }
    }
    const answered = new Set<string>();
    for (const record of records) {
      // Like the server, one row per localId: a repeat within the batch is not listed twice.
      if (answered.has(record.localId)) continue;
      answered.add(record.localId);
      const existing = this.byLocalId.get(record.localId);
      if (existing) {
        acks.push({ localId: record.localId, seq: existing.seq });
        continue;
      }
      const stored: StoredRecord = {
        seq: this.stored.length + 1,
        localId: record.localId,
        content: record.content,
        createdAt: Date.now(),
      };
      this.stored.push(stored);
      this.byLocalId.set(record.localId, stored);
      fresh.push(stored);
      acks.push({ localId: record.localId, seq: stored.seq });
    }
    for (const stored of fresh) this.subject.next(stored);
    return acks.sort((a, b) => a.seq - b.seq);
  }

  /** Appends one raw record as another client would, with no validation of its content. */
  injectRaw(content: string, localId: string | null = null): StoredRecord {
    const stored: StoredRecord = { seq: this.stored.length + 1, localId, content, createdAt: Date.now() };
    this.stored.push(stored);
    if (localId !== null) this.byLocalId.set(localId, stored);
    this.subject.next(stored);
    return stored;
  }

  async read(afterSeq: number, options: { readonly limit?: number } = {}): Promise<ReadPage> {
    const limit = Math.min(Math.max(options.limit ?? 100, 1), MAX_PAGE);
    const start = Math.max(0, Math.floor(afterSeq));
    const records = this.stored.slice(start, start + limit);
    return { records, hasMore: start + limit < this.stored.length };
  }
}
