import { Subject } from 'rxjs';
import type { Observable } from 'rxjs';
import { encodeBase64 } from '../crypto/base64.js';
import { sealPlaintextNow } from '../crypto/records.js';
import type { RecordKey } from '../crypto/records.js';
import { SdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { newId } from '../protocol/ids.js';
import { findNonJson, formatPath } from '../protocol/jsonValue.js';
import { parseSessionMessage } from '../protocol/parse.js';
import { isScalarMessage } from '../protocol/scalarMessage.js';
import type { SessionMessage } from '../protocol/sessionMessage.js';
import { NO_CONTEXT } from '../protocol/messageContext.js';
import type { MessageContext } from '../protocol/messageContext.js';
import type { Transport } from '../ports/transport.js';
import { asyncIterableOf } from '../ports/asyncIterable.js';
import type { IterateOptions } from '../ports/asyncIterable.js';
import { MonotonicClock } from './clock.js';
import type { WriterCore } from './core.js';
import { Outbox } from './outbox.js';
import { Redactor } from './redactor.js';
import type { RedactOptions, RedactionCounts, RegisteredSecret } from './redactor.js';
import type { WriterCloseOptions, FlushOptions, OutboxOptions } from './outbox.js';
import { assertRecordFits } from './recordSize.js';
import type { WriterPlugin, WriterPlugins } from './plugins.js';
import type { Turn } from './builders.js';
import { handledRejection } from './stoppedTurn.js';
import { ToolCallBuilder } from './toolCall.js';
import { TurnBuilder } from './turn.js';
import type { Delivery, EmitOptions, MessageDraft, StreamLifecycleEvent } from './types.js';

/** Options of a {@link SessionWriter}. */
export interface SessionWriterOptions {
  /** Where the encrypted records go. */
  readonly transport: Transport;
  /** The session's record key (dataKey or legacy variant). */
  readonly key: RecordKey;
  /** Wall clock in unix ms; default `Date.now`. The writer makes it strictly increasing. */
  readonly clock?: () => number;
  /** Id factory; default cuid2. */
  readonly createId?: () => string;
  readonly logger?: Logger;
  readonly outbox?: OutboxOptions;
  /**
   * Writes another wire format: each validated v2 message is stored as the 0..n records this
   * returns, in order, instead of itself (`connect({format: 'v1'})` passes the v1 encoder). It is
   * called once per message, in append order. {@link SessionWriter.messages$} still emits the v2
   * message, and its delivery settles when the last of its records is stored (see {@link Delivered}).
   * `context` holds what the appender knew beyond the message (an attachment's file name, say).
   * Default: the v2 message is the record.
   */
  readonly encode?: (message: SessionMessage, context: MessageContext) => readonly unknown[];
  /**
   * Scrubs secrets from every message before it is validated and encrypted (docs/redaction.md):
   * on by default with `DEFAULT_SECRET_DETECTORS`; options extend the table or register
   * values; `false` turns it off. A single message opts out with `{ redact: false }`.
   */
  readonly redact?: RedactOptions | boolean;
}

/** How long {@link SessionWriter.close} waits for undelivered records by default (docs/transport.md, "Bounded waits"). */
export const DEFAULT_CLOSE_DEADLINE_MS = 30_000;

const utf8 = new TextEncoder();
/** Where a record's JSON is encoded before it is copied out at its size; reused, only synchronously. */
const scratch = new Uint8Array(64 * 1024);

/**
 * The UTF-8 bytes of `json`, in an array of their own: encoded into the scratch buffer and copied
 * out at their size, which costs about half of `TextEncoder.encode` for a record of a few hundred
 * bytes (docs/performance.md, "Cutting the client's CPU per message"); a string that might not fit
 * (over a third of the scratch in UTF-16 units) is encoded directly.
 */
function utf8Bytes(json: string): Uint8Array {
  if (json.length * 3 > scratch.length) return utf8.encode(json);
  const { written } = utf8.encodeInto(json, scratch);
  return scratch.slice(0, written);
}

/** The options of an append given none (one object, not one per append). */
const NO_OPTIONS: EmitOptions = Object.freeze({});

/** The messages the outbox's hard bound may refuse: leaves of the stream, never its structure. */
const REFUSABLE: ReadonlySet<SessionMessage['type']> = new Set(['text', 'service', 'photo', 'video', 'file']);

/**
 * Writes one session's v2 stream: validates each message, encrypts it and appends it in call order.
 * It owns two RxJS Subjects, both completed by `close()`: {@link SessionWriter.messages$} emits every
 * appended message in call order, as it is appended; {@link SessionWriter.errors$} delivery failures
 * and stalls.
 *
 * Invariants it enforces (docs/architecture.md, "Builders"): ids are cuid2; `time` strictly increases;
 * every `tool-call-start` gets exactly one `tool-call-end`; a turn that ends first closes its open
 * calls with error `cancelled`; an invalid message is refused with an `SdkError` and never appended:
 * one that JSON cannot carry as written (`stream.invalid_message`, naming the path of the bad value)
 * or whose record would exceed `MAX_RECORD_BYTES` (`stream.too_large`), before anything is queued.
 */
export class SessionWriter {
  private readonly messagesSubject = new Subject<SessionMessage>();
  private readonly errorsSubject = new Subject<SdkError>();
  private readonly clock: MonotonicClock;
  private readonly outbox: Outbox;
  private readonly key: RecordKey;
  private readonly makeId: () => string;
  private readonly logger: Logger;
  private readonly turns = new Set<TurnBuilder>();
  private closed = false;
  private closing: Promise<void> | undefined;
  private revokedBy: SdkError | undefined;
  private readonly core: WriterCore;
  private readonly installed: WriterPlugins = {};
  private readonly hooks = new Set<WriterPlugin>();
  private readonly encode: SessionWriterOptions['encode'];
  private readonly redactor: Redactor | undefined;
  /** Errors already reported on `errors$` (one report per failure). */
  private readonly reported = new WeakSet<object>();
  /** Delivery of the last record queued: a message with no records settles with its seq. */
  private lastRecord: Promise<{ readonly seq: number }> | undefined;

  /** Every appended message, in append order, at the moment it is appended. */
  readonly messages$: Observable<SessionMessage> = this.messagesSubject.asObservable();
  /**
   * Delivery failures (also seen by `flush()`), each once: a failed batch is one event naming its
   * messages (`details.messageIds`); `stream.delivery_stalled` once per stall when records keep
   * failing to be stored for longer than `outbox.stallAfterMs`; `stream.backpressure` once per
   * stretch of content refused past the outbox's bound.
   */
  readonly errors$: Observable<SdkError> = this.errorsSubject.asObservable();

  /** {@link SessionWriter.messages$} as an async iterable: `for await (const m of writer.messages({ signal }))`. */
  messages(options: IterateOptions = {}): AsyncGenerator<SessionMessage> {
    return asyncIterableOf(this.messages$, options);
  }

  /** {@link SessionWriter.errors$} as an async iterable. */
  errors(options: IterateOptions = {}): AsyncGenerator<SdkError> {
    return asyncIterableOf(this.errors$, options);
  }

  constructor(options: SessionWriterOptions) {
    this.key = options.key;
    this.clock = new MonotonicClock(options.clock);
    this.makeId = options.createId ?? newId;
    this.logger = options.logger ?? silentLogger;
    this.encode = options.encode;
    this.redactor =
      options.redact === false ? undefined : new Redactor(options.redact === true ? {} : options.redact);
    this.outbox = new Outbox(
      options.transport,
      { logger: this.logger, ...options.outbox },
      (stall) => this.errorsSubject.next(stall),
      (error, messageId) => this.report(error, messageId),
    );
    this.core = {
      emit: (draft, emitOptions) => this.emit(draft, emitOptions),
      emitOwn: (draft, emitOptions) => this.emit(draft, emitOptions, true),
      announce: (event) => this.announce(event),
      createId: () => this.makeId(),
      logger: this.logger,
      plugins: this.installed,
    };
  }

  /** Starts a turn: appends `turn-start` and returns the {@link Turn}. */
  turn(options: { id?: string } = {}): Turn {
    this.assertOpen();
    this.forgetEndedTurns();
    const turn = new TurnBuilder({
      core: this.core,
      state: {
        turnId: options.id ?? this.makeId(),
        ended: false,
        openCalls: new Set(),
        stop: new AbortController(),
        streams: new Set(),
      },
      makeCall: (parent, callOptions) => new ToolCallBuilder(parent, callOptions),
    });
    this.turns.add(turn);
    return turn;
  }

  /**
   * Installs a plug-in: the permission gate (`PermissionGate.create` does this itself) or the
   * media pipeline, and its lifecycle hook. One runtime of each kind per writer; installing a
   * second replaces the first. Returns the function that uninstalls it.
   */
  install(plugin: WriterPlugin): () => void {
    if (plugin.permissions) this.installed.permissions = plugin.permissions;
    if (plugin.media) this.installed.media = plugin.media;
    if (plugin.questions) this.installed.questions = plugin.questions;
    this.hooks.add(plugin);
    return () => {
      this.hooks.delete(plugin);
      if (plugin.permissions && this.installed.permissions === plugin.permissions)
        delete this.installed.permissions;
      if (plugin.media && this.installed.media === plugin.media) delete this.installed.media;
      if (plugin.questions && this.installed.questions === plugin.questions) delete this.installed.questions;
    };
  }

  /** The installed plug-ins. */
  get plugins(): Readonly<WriterPlugins> {
    return this.installed;
  }

  /** Turns started and not yet ended. */
  get openTurns(): readonly Turn[] {
    this.forgetEndedTurns();
    return [...this.turns];
  }

  /**
   * Stops every open turn from outside the program (the app's stop): each ends `cancelled` now,
   * and what the program still writes to it settles `stream.turn_stopped` instead of being
   * appended (docs/architecture.md, "Builders"). Returns how many turns it stopped.
   */
  stopTurns(reason: unknown = new Error('turn stopped')): number {
    this.forgetEndedTurns();
    const turns = [...this.turns];
    for (const turn of turns) turn.stop(reason);
    return turns.length;
  }

  /**
   * Makes every later message's `time` exceed `time`: a process that takes over a session written
   * earlier (by a process that died, docs/recovery.md) calls it with the stream's last time, so
   * the app, which orders rows by `time`, shows what it writes after what is there.
   */
  continueAfter(time: number): void {
    this.clock.advancePast(time);
  }

  /** Appends a `service` message outside any turn. */
  service(text: string): Delivery {
    return this.append({ type: 'service', role: 'agent', text });
  }

  /**
   * Appends any v2 message as given (the escape hatch under the builders, also used for user-role
   * messages such as a recorded `permission-response`). `id` and `time` are filled in when left out.
   * Throws `SdkError` `stream.invalid_message` when the message does not validate.
   */
  append(draft: MessageDraft, options: EmitOptions = {}): Delivery {
    this.assertOpen();
    return this.emit(draft, options).delivery;
  }

  /** Like {@link SessionWriter.append}, and also returns the message as stamped (its `id` and `time`). */
  appendMessage(
    draft: MessageDraft,
    options: EmitOptions = {},
  ): { readonly message: SessionMessage; readonly delivery: Delivery } {
    this.assertOpen();
    return this.emit(draft, options);
  }

  /**
   * Registers values to redact wherever they appear from now on, such as those loaded from `.env`
   * (`secretValuesOf(process.env)` picks the ones whose names say they are secrets). Throws
   * `stream.secret_too_short` for a value under 6 characters; does nothing when redaction is off.
   */
  registerSecrets(secrets: Iterable<RegisteredSecret>): void {
    for (const secret of secrets) this.redactor?.register(secret);
  }

  /** How many secrets of each kind the writer has redacted so far (`{}` when redaction is off). */
  get redactions(): RedactionCounts {
    return this.redactor?.counts ?? {};
  }

  /**
   * A value with its strings redacted as the writer would redact a message's content, without
   * counting: for copies of content that leave the process another way (the gate's agentState
   * mirror). Returned as is when redaction is off.
   */
  redactValue<T>(value: T): T {
    return this.redactor ? this.redactor.redactValue(value) : value;
  }

  /**
   * Resolves when fewer records than the outbox's high-water mark are queued: await it before each
   * append of a loop. A producer that does not, past the outbox's hard bound, has its content
   * refused with `stream.backpressure` (docs/transport.md, "Backpressure").
   */
  ready(): Promise<void> {
    return this.outbox.ready();
  }

  /**
   * Resolves when everything appended so far is stored; rejects with the failure that stopped
   * delivery or the first delivery error. With `timeoutMs` or `signal`, it stops waiting with
   * `stream.undelivered`, whose `details.messageIds` lists the messages not stored yet (they are
   * still being retried). See docs/transport.md, "Bounded waits".
   */
  flush(options: FlushOptions = {}): Promise<void> {
    return this.outbox.flush(options);
  }

  /** Records queued or in flight. */
  get pending(): number {
    return this.outbox.size;
  }

  /** Retries a delivery that is waiting out its backoff now (after a reconnect, say). */
  retryNow(): void {
    this.outbox.retryNow();
  }

  /**
   * Ends open turns as `cancelled`, delivers what is queued and refuses further appends. Waits at
   * most `deadlineMs` (default {@link DEFAULT_CLOSE_DEADLINE_MS}; `Infinity` waits as long as it
   * takes) or until `signal` aborts; then it stops retrying and rejects with `stream.undelivered`,
   * whose `details.messageIds` lists exactly the messages not stored. Idempotent.
   */
  close(options: WriterCloseOptions = {}): Promise<void> {
    this.closing ??= this.revokedBy ? Promise.resolve() : this.shutdown(options);
    return this.closing;
  }

  /**
   * Stops writing for good because another process took the session over (docs/writer-lease.md):
   * plug-ins hear `writer-closing` with `revokedBy`, so the permission requests they hold reject
   * with `error`; open turns stop without an end record (the new holder ends them); what is
   * queued and not sent is dropped, its deliveries rejecting with `error`; every later append
   * throws `error`; `errors$` reports it once and completes. Idempotent.
   */
  revoke(error: SdkError): void {
    if (this.revokedBy || this.closing) return;
    this.revokedBy = error;
    this.closed = true;
    this.announce({ kind: 'writer-closing', revokedBy: error });
    this.forgetEndedTurns();
    for (const turn of [...this.turns]) {
      try {
        turn.stop(error);
      } catch (stopError) {
        // Its end records are refused: the new holder ends the turn.
        this.logger.debug('turn stopped without its end records', { error: String(stopError) });
      }
    }
    this.outbox.revoke(error);
    this.errorsSubject.next(error);
    this.messagesSubject.complete();
    this.errorsSubject.complete();
  }

  private async shutdown(options: WriterCloseOptions): Promise<void> {
    // Stopped, not ended by the program: what it still writes to them settles `stream.turn_stopped`.
    this.stopTurns(new Error('the session is closing'));
    this.announce({ kind: 'writer-closing' });
    this.closed = true;
    try {
      await this.outbox.close({ ...options, deadlineMs: options.deadlineMs ?? DEFAULT_CLOSE_DEADLINE_MS });
    } finally {
      this.messagesSubject.complete();
      this.errorsSubject.complete();
    }
  }

  /** Tells every plug-in's hook, in installation order; a failing hook is logged and skipped. */
  private announce(event: StreamLifecycleEvent): void {
    for (const plugin of [...this.hooks]) {
      try {
        plugin.onLifecycle?.(event);
      } catch (error) {
        this.logger.error('a plug-in lifecycle hook failed', { event: event.kind, error: String(error) });
      }
    }
  }

  /** Drops ended turns, so a long session does not keep every turn it ever had (bench growth.rss). */
  private forgetEndedTurns(): void {
    for (const turn of this.turns) if (turn.ended) this.turns.delete(turn);
  }

  private assertOpen(): void {
    if (this.revokedBy) throw this.revokedBy;
    if (this.closed)
      throw new SdkError('stream.closed', 'The writer is closed; nothing more can be appended.');
  }

  /**
   * Stamps, checks, redacts, seals and queues one message. `owned`: the draft is a builder's own
   * fresh object, stamped in place instead of copied (id and time go last either way, so the
   * record's JSON is the same).
   */
  private emit(
    draft: MessageDraft,
    options: EmitOptions = NO_OPTIONS,
    owned = false,
  ): { message: SessionMessage; delivery: Delivery } {
    if (this.revokedBy) throw this.revokedBy;
    if (draft.time !== undefined) this.clock.advancePast(draft.time);
    const given = this.stamp(owned ? draft : { ...draft });
    // A message of scalars only (a text, a turn's start or end, a call's end: most of a stream; the
    // gate's record of an answer) is checked field by field, and redaction keeps it so (it
    // replaces strings with strings); any other goes through the JSON check and the schema
    // (docs/performance.md).
    const scalar = isScalarMessage(given);
    const nonJson = scalar ? undefined : findNonJson(given);
    if (nonJson) {
      const where = formatPath(nonJson.path);
      throw new SdkError('stream.invalid_message', `${where} is ${nonJson.found}, which JSON cannot carry.`, {
        hint: 'pass plain JSON values (strings, finite numbers, booleans, null, arrays, objects); the message was not appended',
        details: {
          issues: [{ path: nonJson.path, message: `${nonJson.found} is not JSON` }],
          type: draft.type,
          path: where,
        },
      });
    }
    // Redacted before validation: what is validated, encrypted and emitted never held the secret.
    const redactor = options.redact !== false ? this.redactor : undefined;
    const stamped = redactor ? redactor.redactMessage(given) : given;
    const parsed = scalar ? undefined : parseSessionMessage(stamped);
    if (parsed && !parsed.ok) {
      throw new SdkError('stream.invalid_message', parsed.error.message, {
        hint: 'fix the fields named above; the message was not appended',
        details: { issues: parsed.error.issues, type: parsed.error.type },
      });
    }
    const message = this.sealed(parsed ? parsed.value : (stamped as SessionMessage));
    const delivery = this.encode ? this.queueEncoded(message, options, redactor) : this.queue(message);
    return { message, delivery };
  }

  /**
   * A draft with its id and time filled in where missing, in place: the caller hands over a copy
   * of a draft given from outside, or a builder's own fresh draft (see {@link WriterCore.emitOwn}).
   */
  private stamp(draft: MessageDraft): MessageDraft & { id: string; time: number } {
    const own = draft as { id?: string; time?: number };
    own.id = own.id ?? this.makeId();
    own.time = own.time ?? this.clock.next();
    return draft as MessageDraft & { id: string; time: number };
  }

  /**
   * A v2 message as its one record: sealed, queued and emitted on `messages$`, or refused past the
   * outbox's bound (and not emitted).
   */
  private queue(message: SessionMessage): Delivery {
    const plain = utf8Bytes(JSON.stringify(message));
    assertRecordFits(plain.length, this.key.variant, message);
    const refused = this.refusedByBound(message, 1, plain.length);
    if (refused) return refused;
    // The outbox settles the delivery itself and reports its failure (one promise per message).
    const delivery = this.outbox.enqueueMessage(message.id, this.seal(plain), plain.length);
    this.lastRecord = delivery;
    this.messagesSubject.next(message);
    return delivery;
  }

  /** A message through the writer's `encode` hook: its 0..n records, each sealed and queued. */
  private queueEncoded(
    message: SessionMessage,
    options: EmitOptions,
    redactor: Redactor | undefined,
  ): Delivery {
    // The context reaches the wire too (the v1 encoder writes an attachment's name as its caption).
    const context = options.context
      ? (redactor?.redactValue(options.context) ?? options.context)
      : NO_CONTEXT;
    const plaintexts = this.plaintextsOf(message, context);
    let bytes = 0;
    for (const plain of plaintexts) bytes += plain.length;
    const refused = this.refusedByBound(message, plaintexts.length, bytes);
    if (refused) return refused;
    const delivery = this.enqueue(message.id, plaintexts);
    delivery.catch((error: unknown) => this.report(error, message.id));
    this.messagesSubject.next(message);
    return delivery;
  }

  /**
   * Reports a delivery failure on `errors$` once: a batch's failure rejects every message it
   * carried (and every one queued behind it) with one error, which names them.
   */
  private report(error: unknown, messageId: string): void {
    if (typeof error === 'object' && error !== null) {
      if (this.reported.has(error)) return;
      this.reported.add(error);
    }
    this.errorsSubject.next(
      error instanceof SdkError
        ? error
        : new SdkError('stream.delivery_failed', `Could not deliver message ${messageId}.`, { cause: error }),
    );
  }

  /**
   * Past the outbox's hard bound a content message (text, service, media) is not appended: its
   * delivery rejects with `stream.backpressure`, reported on `errors$` once per stretch of
   * refusals. Structural messages (turn and call starts and ends, permission records) are always
   * admitted, so every call still gets its one end (docs/transport.md, "Backpressure").
   */
  private refusedByBound(message: SessionMessage, records: number, bytes: number): Delivery | undefined {
    if (!REFUSABLE.has(message.type)) return undefined;
    const admission = this.outbox.admits(records, bytes);
    if (admission === 'admitted') return undefined;
    const error = this.outbox.refusal(message.id, message.type);
    if (admission === 'refused-first') {
      this.logger.warn('the outbox is full: content is refused until it drains (await writer.ready())', {
        messageId: message.id,
      });
      this.errorsSubject.next(error);
    }
    return handledRejection(error);
  }

  /** The message with the seal an installed plug-in gives it, if any ({@link WriterPlugin.seal}). */
  private sealed(message: SessionMessage): SessionMessage {
    for (const plugin of this.hooks) {
      if (!plugin.seal) continue;
      let seal: string | undefined;
      try {
        seal = plugin.seal(message);
      } catch (cause) {
        throw new SdkError('stream.invalid_message', `Message ${message.id} could not be sealed.`, {
          hint: 'the permission gate refused to seal it; the message was not appended',
          cause,
        });
      }
      if (seal !== undefined) return { ...message, seal } as SessionMessage;
    }
    return message;
  }

  /** Each record of the message as the plaintext it is sealed from, every one checked against the size limit. */
  private plaintextsOf(message: SessionMessage, context: MessageContext): Uint8Array[] {
    return this.recordsOf(message, context).map((record) => {
      const plain = utf8Bytes(JSON.stringify(record) ?? '');
      assertRecordFits(plain.length, this.key.variant, message);
      return plain;
    });
  }

  private recordsOf(message: SessionMessage, context: MessageContext): readonly unknown[] {
    if (!this.encode) return [message];
    try {
      return this.encode(message, context);
    } catch (error) {
      throw new SdkError(
        'stream.encode_failed',
        `Message ${message.id} (${message.type}) could not be encoded for the session's wire format.`,
        { cause: error, hint: 'the message was not appended; see the cause' },
      );
    }
  }

  /**
   * Encrypts one record: synchronously with node:crypto, a promise with WebCrypto. A failure
   * becomes a rejected content, so the outbox rejects that record's delivery as before.
   */
  private seal(plain: Uint8Array): string | Promise<string> {
    try {
      const sealed = sealPlaintextNow(plain, this.key);
      return sealed instanceof Uint8Array ? encodeBase64(sealed) : sealed.then(encodeBase64);
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /**
   * Queues a message's encoded records. The first takes the message id as `localId` (the session
   * spots its own echo by it), the others `<id>:<n>`. No records: it settles once everything before
   * it is stored, with the seq of the last record queued before it (0 if none).
   */
  private enqueue(messageId: string, records: readonly Uint8Array[]): Delivery {
    if (records.length === 0) {
      const previous = this.lastRecord;
      return previous
        ? previous.then((ack) => ({ messageId, seq: ack.seq }))
        : Promise.resolve({ messageId, seq: 0 });
    }
    const acks = records.map((plain, i) =>
      this.outbox.enqueue(
        i === 0 ? messageId : `${messageId}:${i}`,
        this.seal(plain),
        messageId,
        plain.length,
      ),
    );
    const last = acks[acks.length - 1]!;
    this.lastRecord = last;
    if (acks.length === 1) return last.then((ack) => ({ messageId, seq: ack.seq }));
    return Promise.all(acks).then((stored) => ({ messageId, seq: stored[stored.length - 1]!.seq }));
  }
}
