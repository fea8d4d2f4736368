import { Subject } from 'rxjs';
import type { Observable, Subscription } from 'rxjs';
import { decryptRecord } from '../crypto/records.js';
import type { RecordKey } from '../crypto/records.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { UserTextMessage } from '../protocol/sessionMessage.js';
import { toIncomingUserMessage } from './incomingUserMessage.js';
import type { IncomingUserMessage } from './incomingUserMessage.js';
import { recordFeed } from '../ports/recordFeed.js';
import type { StoredRecord, Transport } from '../ports/transport.js';

/** One user text prompt, as `session.prompts()` yields it. */
export interface Prompt {
  readonly text: string;
  readonly message: UserTextMessage;
  /** Legacy `meta` (`permissionMode`, `model`, `effort`, …); empty for v2 records. */
  readonly meta: Readonly<Record<string, unknown>>;
  readonly seq: number;
}

/** Options of a {@link UserInbox}. */
export interface UserInboxOptions {
  readonly transport: Transport;
  readonly key: RecordKey;
  /** Records up to this `seq` are history, not new input. */
  readonly afterSeq: number;
  /** True for a `localId` this process appended (its own echo). */
  readonly isOwn: (localId: string) => boolean;
  readonly logger?: Logger;
}

/**
 * What the user sends to the session: every record after `afterSeq` that is a user message and
 * not this process's own echo, as typed v2 (legacy app text normalised), exactly once and in
 * `seq` order. Prompts are buffered from the start, so none is lost before the agent loop asks.
 */
export class UserInbox {
  private readonly subject = new Subject<IncomingUserMessage>();
  private readonly subscription: Subscription;
  private readonly logger: Logger;
  private readonly buffered: Prompt[] = [];
  private waiters: Array<(prompt: Prompt | undefined) => void> = [];
  private chain: Promise<void> = Promise.resolve();
  private ended = false;

  /** Incoming user messages (hot: a subscriber sees those that arrive after it subscribed). */
  readonly messages$: Observable<IncomingUserMessage> = this.subject.asObservable();

  constructor(private readonly options: UserInboxOptions) {
    this.logger = options.logger ?? silentLogger;
    this.subscription = recordFeed(options.transport, { afterSeq: options.afterSeq }).subscribe({
      // Decryption is async; chain it so messages keep `seq` order.
      next: (record) => {
        this.chain = this.chain.then(() => this.take(record));
      },
      error: (error: unknown) => {
        this.logger.error('reading user messages failed', { error: String(error) });
        this.end();
      },
    });
  }

  /** User text prompts, buffered since the session opened; ends when the session closes. */
  async *prompts(): AsyncGenerator<Prompt> {
    for (;;) {
      const next =
        this.buffered.shift() ??
        (this.ended ? undefined : await new Promise<Prompt | undefined>((r) => this.waiters.push(r)));
      if (next === undefined) return;
      yield next;
    }
  }

  /** Stops reading; pending `prompts()` iterations finish. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.subscription.unsubscribe();
    this.subject.complete();
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w(undefined);
  }

  private async take(record: StoredRecord): Promise<void> {
    if (this.ended) return;
    if (record.localId !== null && this.options.isOwn(record.localId)) return;
    const decrypted = await decryptRecord(record.content, this.options.key);
    if (!decrypted.ok) {
      this.logger.warn('a record does not decrypt', { seq: record.seq, code: decrypted.error.code });
      return;
    }
    const incoming = toIncomingUserMessage(decrypted.value, record);
    if (!incoming || this.ended) return;
    this.subject.next(incoming);
    const { message } = incoming;
    if (message.type !== 'text') return;
    const prompt: Prompt = { text: message.text, message, meta: incoming.meta, seq: incoming.seq };
    const waiter = this.waiters.shift();
    if (waiter) waiter(prompt);
    else this.buffered.push(prompt);
  }
}
