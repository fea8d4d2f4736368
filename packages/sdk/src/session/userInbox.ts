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
import { parseSessionMessage } from '../protocol/parse.js';
import type { ProtocolFailureCode } from '../protocol/parse.js';
import type { CryptoFailureCode } from '../crypto/failure.js';
import { MAX_RECORD_BYTES, storedRecordBytes } from '../stream/recordSize.js';
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

/** Why the inbox refused a record: the reader's codes, and a user message with an absurd time. */
export type InputErrorCode =
  'stream.too_large' | 'stream.implausible_time' | CryptoFailureCode | ProtocolFailureCode;

/**
 * A record the agent's input refused (docs/streaming.md, "The agent's input: delivered, or skipped with an error"): it is neither
 * delivered to `userMessages$` nor a prompt, and reading goes on with the next record.
 */
export interface InputErrorEvent {
  readonly seq: number;
  readonly localId: string | null;
  readonly code: InputErrorCode;
  readonly message: string;
}

/** How far ahead of the server's clock a user message's `time` may be: 10 minutes. */
export const MAX_INPUT_TIME_AHEAD_MS = 10 * 60_000;
/** How far behind the server's clock a user message's `time` may be: 30 days. */
export const MAX_INPUT_TIME_BEHIND_MS = 30 * 24 * 60 * 60_000;

/** Options of a {@link UserInbox}. */
export interface UserInboxOptions {
  readonly transport: Transport;
  readonly key: RecordKey;
  /** Records up to this `seq` are history, not new input. */
  readonly afterSeq: number;
  /** True for a `localId` this process appended (its own echo). */
  readonly isOwn: (localId: string) => boolean;
  readonly logger?: Logger;
  /** Records whose ciphertext is larger are refused (`stream.too_large`); default the reader's, 1 MiB. */
  readonly maxRecordBytes?: number;
}

/**
 * What the user sends to the session: every record after `afterSeq` that is a user message and
 * not this process's own echo, as typed v2 (legacy app text normalised), exactly once and in
 * `seq` order. Prompts are buffered from the start, so none is lost before the agent loop asks.
 * It applies the reader's limits: a record too large, one that does not decrypt, a user message
 * that fails its schema, or one whose time is absurd is skipped, and said on `errors$` with its
 * code, never delivered.
 */
export class UserInbox {
  private readonly subject = new Subject<IncomingUserMessage>();
  private readonly errorSubject = new Subject<InputErrorEvent>();
  private readonly subscription: Subscription;
  private readonly logger: Logger;
  private readonly buffered: Prompt[] = [];
  private attachments: UserMediaMessage[] = [];
  private waiters: Array<(prompt: Prompt | undefined) => void> = [];
  private chain: Promise<void> = Promise.resolve();
  private ended = false;

  /** Incoming user messages (hot: a subscriber sees those that arrive after it subscribed). */
  readonly messages$: Observable<IncomingUserMessage> = this.subject.asObservable();

  /** Records refused on the way in, each with its code (hot, like `messages$`). */
  readonly errors$: Observable<InputErrorEvent> = this.errorSubject.asObservable();

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
    this.errorSubject.complete();
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w(undefined);
  }

  private async take(record: StoredRecord): Promise<void> {
    if (this.ended) return;
    const limit = this.options.maxRecordBytes ?? MAX_RECORD_BYTES;
    // Checked before decrypting anything, as the reader does.
    if (typeof record.content !== 'string' || storedRecordBytes(record.content) > limit) {
      this.refuse(
        record,
        'stream.too_large',
        `Record ${record.seq} is larger than ${limit} bytes; it was not decrypted.`,
      );
      return;
    }
    const decrypted = await decryptRecord(record.content, this.options.key);
    if (!decrypted.ok) {
      this.refuse(record, decrypted.error.code, decrypted.error.message);
      return;
    }
    const incoming = toIncomingUserMessage(decrypted.value, record);
    if (!incoming) {
      // Records of the agent's side pass by; a user's record that fits no schema is refused.
      const value = decrypted.value as { role?: unknown } | null;
      if (typeof value === 'object' && value !== null && value.role === 'user') {
        const parsed = parseSessionMessage(value);
        if (!parsed.ok) this.refuse(record, parsed.error.code, parsed.error.message);
      }
      return;
    }
    const clock = record.createdAt ?? Date.now();
    const time = incoming.message.time;
    if (time > clock + MAX_INPUT_TIME_AHEAD_MS || time < clock - MAX_INPUT_TIME_BEHIND_MS) {
      this.refuse(
        record,
        'stream.implausible_time',
        `Record ${record.seq} says it was sent at ${time}, ${time > clock ? 'after' : 'before'} the server stored it (${clock}) by more than the inbox accepts.`,
      );
      return;
    }
    if (this.ended) return;
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

  private refuse(record: StoredRecord, code: InputErrorCode, message: string): void {
    this.logger.warn('a record of the input was skipped', { seq: record.seq, code });
    if (!this.ended) this.errorSubject.next({ seq: record.seq, localId: record.localId, code, message });
  }
}
