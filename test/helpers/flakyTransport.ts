import { Subject } from 'rxjs';
import { SdkError } from 'happy-session';
import type { AppendAck, OutgoingRecord, ReadPage, StoredRecord } from 'happy-session/ports';
import type { Transport, MemoryTransport } from 'happy-session';

/**
 * Wraps a MemoryTransport and fails appends on demand: before storing (the request never arrived)
 * or after storing (the answer was lost), and can drop live hints. For outbox and reader tests.
 */
export class FlakyTransport implements Transport {
  readonly batches: number[] = [];
  failuresBefore = 0;
  failuresAfter = 0;
  rejectNext: SdkError | undefined;
  dropHint: (record: StoredRecord) => boolean = () => false;
  private readonly hints = new Subject<StoredRecord>();
  readonly records$ = this.hints.asObservable();

  constructor(readonly inner: MemoryTransport) {
    inner.records$.subscribe((r) => {
      if (!this.dropHint(r)) this.hints.next(r);
    });
  }

  async append(records: readonly OutgoingRecord[]): Promise<readonly AppendAck[]> {
    this.batches.push(records.length);
    if (this.rejectNext) {
      const error = this.rejectNext;
      this.rejectNext = undefined;
      throw error;
    }
    if (this.failuresBefore > 0) {
      this.failuresBefore--;
      throw new SdkError('transport.network', 'connection reset (simulated)');
    }
    const acks = await this.inner.append(records);
    if (this.failuresAfter > 0) {
      this.failuresAfter--;
      throw new SdkError('transport.server_error', 'answer lost (simulated)', { details: { status: 502 } });
    }
    return acks;
  }

  read(afterSeq: number, options?: { limit?: number }): Promise<ReadPage> {
    return this.inner.read(afterSeq, options);
  }
}
