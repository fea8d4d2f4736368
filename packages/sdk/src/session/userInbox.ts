import { Subject } from 'rxjs';
import type { Observable, Subscription } from 'rxjs';
import { decryptRecord } from '../crypto/records.js';
import type { RecordKey } from '../crypto/records.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { UserMediaMessage, UserTextMessage } from '../protocol/sessionMessage.js';
import type { IterateOptions } from '../ports/asyncIterable.js';
import { toIncomingUserMessage } from './incomingUserMessage.js';
import type { IncomingUserMessage } from './incomingUserMessage.js';
import { recordFeed } from '../ports/recordFeed.js';
import type { StoredRecord, Transport } from '../ports/transport.js';

/** One user text prompt, as `session.prompts()` yields it. */
export interface Prompt {
  readonly text: string;
  readonly message: UserTextMessage;
  /**
   * The photos, videos and files the user sent since the previous prompt, in order (the app and
   * `happy-session send --file` send them before the text); `session.fetchMedia()` reads each.
   */
  readonly attachments: readonly UserMediaMessage[];
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
  private attachments: UserMediaMessage[] = [];
  private waiters: Array<(prompt: Prompt | undefined) => void> = [];
  private chain: Promise<void> = Promise.resolve();
  private ended = false;

  /** Incoming user messages (hot: a subscriber sees those that arrive after it subscribed). */
  readonly messages$: Observable<IncomingUserMessage> = this.subject.asObservable();

  constructor(private readonly options: UserInboxOptions) {
    this.logger = options.logger ?? silentLogger;
    this.subscription = recordFeed(options.transport, { afterSeq: options.afterSeq }).subscribe({
      // Decryption is async; chain it so messages keep `seq` order. The process's own echoes (most
      // records while an agent writes) are dropped here, without a promise each.
      next: (record) => {
        if (record.localId !== null && this.options.isOwn(record.localId)) return;
        this.chain = this.chain.then(() => this.take(record));
      },
      error: (error: unknown) => {
        this.logger.error('reading user messages failed', { error: String(error) });
        this.end();
      },
    });
  }

  /**
   * User text prompts, buffered since the session opened; ends when the session closes or
   * `signal` aborts (a prompt not yet taken then stays buffered for the next loop).
   */
  async *prompts(options: IterateOptions = {}): AsyncGenerator<Prompt> {
    const { signal } = options;
    for (;;) {
      if (signal?.aborted) return;
      const next = this.buffered.shift() ?? (this.ended ? undefined : await this.nextPrompt(signal));
      if (next === undefined) return;
      yield next;
    }
  }

  /** Waits for the next prompt; undefined when the inbox ends or `signal` aborts first. */
  private nextPrompt(signal: AbortSignal | undefined): Promise<Prompt | undefined> {
    return new Promise((resolve) => {
      const waiter = (prompt: Prompt | undefined): void => {
        signal?.removeEventListener('abort', onAbort);
        resolve(prompt);
      };
      const onAbort = (): void => {
        this.waiters = this.waiters.filter((w) => w !== waiter);
        resolve(undefined);
      };
      this.waiters.push(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
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
    const decrypted = await decryptRecord(record.content, this.options.key);
    if (!decrypted.ok) {
      this.logger.warn('a record does not decrypt', { seq: record.seq, code: decrypted.error.code });
      return;
    }
    const incoming = toIncomingUserMessage(decrypted.value, record);
    if (!incoming || this.ended) return;
    this.subject.next(incoming);
    const { message } = incoming;
    if (message.type === 'photo' || message.type === 'video' || message.type === 'file') {
      this.attachments.push(message);
      return;
    }
    if (message.type !== 'text') return;
    const attachments = this.attachments;
    this.attachments = [];
    const prompt: Prompt = {
      text: message.text,
      message,
      attachments,
      meta: incoming.meta,
      seq: incoming.seq,
    };
    const waiter = this.waiters.shift();
    if (waiter) waiter(prompt);
    else this.buffered.push(prompt);
  }
}
