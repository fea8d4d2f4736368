import { Observable, map } from 'rxjs';
import type { RecordKey } from '../crypto/records.js';
import type { SdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { MediaReader } from '../media/fetchMedia.js';
import type { PermissionGate } from '../gate/gate.js';
import type { QuestionDesk } from '../questions/questionDesk.js';
import type { SessionMessage, UserMessage } from '../protocol/sessionMessage.js';
import type { SessionReader } from '../stream/sessionReader.js';
import type { SessionWriter } from '../stream/sessionWriter.js';
import { within } from '../ports/waits.js';
import type { Scope, ToolCall, Turn } from '../stream/builders.js';
import { NOTHING_INTERRUPTED, resumeIn, takeOver } from './succession.js';
import type { Interrupted, InterruptedCall, ResumeOptions } from './succession.js';
import { DEFAULT_CLOSE_DEADLINE_MS } from '../stream/sessionWriter.js';
import type { HappyServerTransport } from '../transport/happyServerTransport.js';
import type { IncomingUserMessage } from './incomingUserMessage.js';
import type { HttpPushNotifier } from '../transport/pushNotifier.js';
import type { StreamFormat } from '../transport/serverFormat.js';
import type { ServerSessionState } from '../transport/serverSessionState.js';
import type { SocketRpc } from '../transport/socketRpc.js';
import { UserInbox } from './userInbox.js';
import { holdingLoop } from './loopHold.js';
import { asyncIterableOf } from '../ports/asyncIterable.js';
import type { IterateOptions } from '../ports/asyncIterable.js';
import type { InputErrorEvent, Prompt } from './userInbox.js';

/** The parts {@link Session} is made of; `connect()` builds them. */
export interface SessionParts {
  readonly id: string;
  /** The format the writer stores; default `v2`. */
  readonly format?: StreamFormat;
  readonly key: RecordKey;
  readonly transport: HappyServerTransport;
  readonly writer: SessionWriter;
  readonly reader: SessionReader;
  readonly rpc: SocketRpc;
  readonly state: ServerSessionState;
  readonly push: HttpPushNotifier;
  /** The question desk answering `turn.ask()`; connect() makes it from the session's channels. */
  readonly questions?: QuestionDesk;
  /** Downloads and decrypts this session's attachments. */
  readonly media: MediaReader;
  /**
   * Records up to this `seq` are history, not input for this run: the last prompt a previous
   * process took, so a prompt sent while no agent ran still reaches this one (docs/recovery.md).
   */
  readonly inputAfterSeq: number;
  /** The session's `seq` when this process opened it: mode picks in older messages are history. */
  readonly openedAtSeq?: number;
  /** Archive the session on `close()` unless told otherwise; default true. */
  readonly archiveOnClose?: boolean;
  readonly logger?: Logger;
}

/** Options of {@link Session.close}. */
export interface SessionCloseOptions {
  /** Call `POST /v1/sessions/:id/archive`; default the session's `archiveOnClose`. */
  readonly archive?: boolean;
  /**
   * How long closing may take, delivery of what is queued included; default
   * `DEFAULT_CLOSE_DEADLINE_MS` (30 s). Records not stored by then are given up
   * (`stream.undelivered`), and the steps after delivery wait only for what time is left.
   */
  readonly deadlineMs?: number;
  /** Gives up waiting as at the deadline. */
  readonly signal?: AbortSignal;
}

/**
 * What `connect()` and the SDK's own modules reach of a session that is no public member of
 * `Session` (the functions at the end of this file).
 */
interface SessionInternals {
  readonly installGate: (gate: PermissionGate) => void;
  /** Stops the session in this process: another process took it over. */
  readonly revoke: (error: SdkError) => void;
  /** Takes over what a dead process left in `history`. */
  readonly takeOver: (history: readonly SessionMessage[], logger: Logger) => void;
  /** `closed`, for the SDK's own waits, which must not count as the program's. */
  readonly closed: Promise<void>;
  readonly waitedOn: () => boolean;
  /** Records the RPC methods the SDK registered before handing the session over. */
  readonly handOver: () => void;
  /** The incoming messages, for the SDK's own readers (not counted as the program's). */
  readonly incoming: Observable<IncomingUserMessage>;
  /** The release of the writer lease on close, which `connect()` gives. */
  releaseLease?: () => Promise<unknown>;
}

const internals = new WeakMap<Session, SessionInternals>();

/**
 * One live Happy session of this process: the writer of its stream, a reader, what the user sends
 * (`userMessages$`, `prompts()`), RPC, encrypted metadata/agentState and push. Built-in RPC
 * handlers: `abort` aborts every open turn's signal, `killSession` archives and closes the session
 * (docs/wire.md §4.6, §7.2). The heartbeat's `thinking` follows the open turns.
 */
export class Session {
  readonly id: string;
  /**
   * The format the stream is stored in: `v1` for today's Happy app, `v2` for the embedded relay's
   * viewer (docs/v1-format.md, "Which format").
   */
  readonly format: StreamFormat;
  /** The session's record key (dataKey or legacy variant). */
  readonly key: RecordKey;
  readonly writer: SessionWriter;
  readonly reader: SessionReader;
  readonly rpc: SocketRpc;
  readonly state: ServerSessionState;
  readonly push: HttpPushNotifier;
  readonly transport: HappyServerTransport;
  /** Incoming user messages as typed v2 (legacy app text normalised), own echoes left out. */
  readonly userMessages$: Observable<UserMessage>;
  /** The same with `seq`, `localId`, legacy `meta` and the record format. */
  readonly incoming$: Observable<IncomingUserMessage>;
  /**
   * Records the agent's input skipped (docs/streaming.md, "The agent's input: delivered, or skipped with an error"): too large,
   * not decrypting, a user message that fails its schema or says an absurd time. Each carries its
   * `seq` and code; none of them reaches `userMessages$` or `prompts()`.
   */
  readonly errors$: Observable<InputErrorEvent>;
  private readonly closedPromise: Promise<void>;
  /** The program has read `closed`: it may be waiting for it (docs/recovery.md, "When the program's code ends"). */
  private closedRead = false;
  /** The program's open subscriptions and loops over what the person sends. */
  private listeners = 0;
  /** The RPC methods the SDK registered before handing the session over; the rest are the program's. */
  private ownMethods: ReadonlySet<string> | undefined;
  private gateRef: PermissionGate | undefined;
  private readonly deskRef: QuestionDesk | undefined;
  private interruptedWork: Interrupted = NOTHING_INTERRUPTED;
  private readonly openedAtSeq: number;

  private readonly inbox: UserInbox;
  private readonly media: MediaReader;
  private readonly controller = new AbortController();
  private readonly ownLocalIds = new Set<string>();
  private readonly openTurns = new Set<string>();
  private readonly archiveOnClose: boolean;
  private readonly logger: Logger;
  private closing: Promise<void> | undefined;
  private resolveClosed!: () => void;

  /**
   * The permission gate guarding this session's tool calls (`call.requestPermission()`,
   * `call.run()`); undefined when `connect({ permissions: false })`.
   */
  get gate(): PermissionGate | undefined {
    return this.gateRef;
  }

  /**
   * The question desk answering `turn.ask()` (docs/questions.md): by the `communication` RPC of
   * today's app, or locally with `session.questions.answer()`.
   */
  get questions(): QuestionDesk | undefined {
    return this.deskRef;
  }

  /**
   * Installs the gate once the session's channels exist ({@link attachGate}). The app's mode picks
   * reach it both ways today's app sends them (docs/wire.md §4.2, §6.1): `meta.permissionMode` on
   * its messages, and `metadata.permissionMode`, which it writes when the user picks.
   */
  private installGate(gate: PermissionGate): void {
    this.gateRef = gate;
    // Two plain subscriptions, not a merge of operator pipes: each open session holds them while it
    // idles (docs/performance.md, "One host, a thousand sessions").
    const take = (pick: unknown): void => {
      const refused = gate.handleModePick(pick);
      if (refused) this.logger.warn('permission mode pick refused', { pick: String(pick), reason: refused });
    };
    this.inbox.messages$.subscribe((incoming) => {
      // A pick in a message from before this process opened the session is history, not a pick now.
      if (incoming.seq > this.openedAtSeq && Object.hasOwn(incoming.meta, 'permissionMode'))
        take(incoming.meta.permissionMode);
    });
    this.state.changes$.subscribe((change) => {
      if (change.field === 'metadata') take(change.value.permissionMode);
    });
  }

  constructor(parts: SessionParts) {
    this.id = parts.id;
    this.format = parts.format ?? 'v2';
    this.key = parts.key;
    this.writer = parts.writer;
    this.reader = parts.reader;
    this.rpc = parts.rpc;
    this.state = parts.state;
    this.push = parts.push;
    this.media = parts.media;
    this.transport = parts.transport;
    this.deskRef = parts.questions;
    this.openedAtSeq = parts.openedAtSeq ?? parts.inputAfterSeq;
    this.archiveOnClose = parts.archiveOnClose ?? true;
    this.logger = parts.logger ?? silentLogger;
    this.closedPromise = new Promise((resolve) => (this.resolveClosed = resolve));

    this.writer.messages$.subscribe((message) => {
      // The writer uses the message id as localId: remember it to recognise the echo.
      this.ownLocalIds.add(message.id);
      if (message.type === 'turn-start') this.openTurns.add(message.turn);
      else if (message.type === 'turn-end') this.openTurns.delete(message.turn);
      else return;
      this.transport.setThinking(this.openTurns.size > 0);
    });
    this.transport.reconnected$.subscribe(({ reconnect }) => {
      if (reconnect) this.writer.retryNow();
    });
    this.inbox = new UserInbox({
      transport: this.transport,
      key: this.key,
      afterSeq: parts.inputAfterSeq,
      isOwn: (localId) => this.ownLocalIds.delete(localId),
      logger: this.logger,
    });
    internals.set(this, {
      installGate: (gate) => this.installGate(gate),
      revoke: (error) => this.revoke(error),
      takeOver: (history, logger) => {
        this.interruptedWork = takeOver(history, {
          writer: this.writer,
          gate: this.gateRef,
          questions: this.deskRef,
          logger,
        });
      },
      closed: this.closedPromise,
      waitedOn: () => this.waitedOn(),
      handOver: () => (this.ownMethods = new Set(this.rpc.methods)),
      incoming: this.inbox.messages$,
    });
    this.incoming$ = this.listened(this.inbox.messages$);
    this.userMessages$ = this.listened(this.inbox.messages$.pipe(map((m) => m.message)));
    this.errors$ = this.inbox.errors$;
    this.rpc.register('abort', () => this.abortTurns());
    this.rpc.register('killSession', () => this.kill());
  }

  /**
   * Resolves once the session is closed: by `close()`, the `killSession` RPC, or another process
   * taking it over (`signal.reason` is then `session.taken_over`, docs/writer-lease.md). A program
   * that reads it may be waiting for it: from then on the session keeps the process alive until
   * it closes (docs/recovery.md, "When the program's code ends").
   */
  get closed(): Promise<void> {
    this.closedRead = true;
    return this.closedPromise;
  }

  /**
   * Aborted when the session closes; with the `session.taken_over` error as its reason when another
   * process took the session over (docs/writer-lease.md).
   */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** Starts a turn (`writer.turn()`). */
  turn(options: { id?: string } = {}): Turn {
    return this.writer.turn(options);
  }

  /**
   * The user's text prompts, from when the session opened, each once, until the session closes or
   * `signal` aborts: `for await (const prompt of session.prompts({ signal })) { … }`. A prompt
   * carries the files the user sent with it.
   */
  async *prompts(options: IterateOptions = {}): AsyncGenerator<Prompt> {
    this.listeners += 1;
    try {
      for await (const prompt of this.inbox.prompts(options)) {
        this.markTaken(prompt);
        yield prompt;
      }
    } finally {
      this.listeners -= 1;
    }
  }

  /** `source`, counted as the program listening while subscribed. */
  private listened<T>(source: Observable<T>): Observable<T> {
    return new Observable<T>((subscriber) => {
      this.listeners += 1;
      const subscription = source.subscribe(subscriber);
      return () => {
        this.listeners -= 1;
        subscription.unsubscribe();
      };
    });
  }

  /**
   * Whether the program may be waiting on this session, so that its process must stay (docs/recovery.md,
   * "When the program's code ends"): records not yet stored, a permission request or a question
   * waiting for its answer, an RPC being answered or a server acknowledgement awaited, a loop or
   * subscription over what the person sends, an RPC method of the program's own, or `closed` read.
   */
  private waitedOn(): boolean {
    return (
      this.listeners > 0 ||
      this.closedRead ||
      this.writer.pending > 0 ||
      (this.gateRef?.pendingCallIds.length ?? 0) > 0 ||
      (this.deskRef?.pending.length ?? 0) > 0 ||
      this.rpc.busy ||
      this.transport.socket.acksAwaited > 0 ||
      this.rpc.methods.some((method) => this.ownMethods !== undefined && !this.ownMethods.has(method))
    );
  }

  /**
   * What a dead process left in this session when this one opened it (docs/recovery.md,
   * "Interrupted calls"): its unfinished calls, each with the permission request that waited and
   * the answer a person gave while no agent was there, and its waiting questions. Their turns are
   * ended; {@link Session.resume} takes a call up again. Empty for a new session.
   */
  get interrupted(): Interrupted {
    return this.interruptedWork;
  }

  /**
   * Takes up an interrupted call in `scope` (default: a new turn): a new call with the same tool,
   * title and arguments, linked to the old one by `resumes`. It runs without asking only when a
   * person allowed exactly that request and input while no agent was there, and only once;
   * otherwise `run()` asks again (docs/recovery.md, "Resuming a call").
   */
  resume(call: InterruptedCall, scope: Scope = this.turn(), options: ResumeOptions = {}): ToolCall {
    return resumeIn(scope, call, this.gateRef, options);
  }

  /**
   * Records that a prompt was taken, in the stream (`prompt-taken`, what a client shows as
   * "seen") and in agentState (`promptsTakenThrough`, which v1 streams cannot hold), so a
   * successor starts after it (docs/recovery.md, "Prompts").
   */
  private markTaken(prompt: Prompt): void {
    try {
      this.writer.append({
        role: 'agent',
        type: 'prompt-taken',
        promptId: prompt.message.id,
        seq: prompt.seq,
      });
    } catch (error) {
      this.logger.debug('prompt mark not appended', { error: String(error) });
    }
    this.state
      .updateAgentState((current) => ({
        ...current,
        promptsTakenThrough: Math.max(numberOr(current.promptsTakenThrough, -1), prompt.seq),
      }))
      .catch((error: unknown) =>
        this.logger.warn('prompt mark not written to agentState', { error: String(error) }),
      );
  }

  /** {@link Session.userMessages$} as an async iterable, until the session closes or `signal` aborts. */
  userMessages(options: IterateOptions = {}): AsyncGenerator<UserMessage> {
    return asyncIterableOf(this.userMessages$, options);
  }

  /** {@link Session.errors$} as an async iterable, until the session closes or `signal` aborts. */
  errors(options: IterateOptions = {}): AsyncGenerator<InputErrorEvent> {
    return asyncIterableOf(this.errors$, options);
  }

  /** {@link Session.incoming$} as an async iterable. */
  incoming(options: IterateOptions = {}): AsyncGenerator<IncomingUserMessage> {
    return asyncIterableOf(this.incoming$, options);
  }

  /**
   * The plaintext of a `photo` / `video` / `file` message of this session, the agent's or the
   * user's: downloaded and decrypted with the session's blob key (docs/wire.md §8.2), or read from
   * disk for an agent's `machine-file://` ref.
   *
   * Errors: `media.bad_ref`, `media.download_failed`, `media.decrypt_failed`,
   * `media.unreadable_path`, `media.aborted`.
   */
  fetchMedia(message: SessionMessage, options: { signal?: AbortSignal } = {}): Promise<Buffer> {
    return this.media.fetch(message, options);
  }

  /**
   * Ends the session: ends open turns as cancelled (which cancels their pending permission
   * requests), delivers everything appended, answers RPCs in flight, sends `session-end`, archives
   * (unless `archive: false`) and disconnects, all within `deadlineMs` (docs/transport.md, "Bounded
   * waits"). Rejects only when delivery failed: with `stream.undelivered` naming the messages not
   * stored by the deadline, or with the outbox's error; the session is closed either way. Idempotent.
   */
  close(options: SessionCloseOptions = {}): Promise<void> {
    // The socket does not keep the process alive: closing does, until it is done.
    this.closing ??= holdingLoop(this.shutdown(options));
    return this.closing;
  }

  private async shutdown(options: SessionCloseOptions): Promise<void> {
    const deadline = Date.now() + (options.deadlineMs ?? DEFAULT_CLOSE_DEADLINE_MS);
    const left = (): number => Math.max(0, deadline - Date.now());
    let failure: unknown;
    try {
      await this.writer.close({ deadlineMs: left(), ...(options.signal ? { signal: options.signal } : {}) });
    } catch (error) {
      failure = error;
      this.logger.error('delivering the last records failed', { error: String(error) });
    }
    this.inbox.end();
    // The gate mirrors the requests it cancelled into agentState: let those writes land.
    await within(this.gateRef?.settled() ?? Promise.resolve(), left(), options.signal);
    await within(this.deskRef?.settled() ?? Promise.resolve(), left(), options.signal);
    await within(this.rpc.idle(), left(), options.signal);
    this.rpc.close();
    // The writer lease goes, so the next process takes the session at once (docs/writer-lease.md).
    await within(internals.get(this)?.releaseLease?.() ?? Promise.resolve(), left(), options.signal);
    this.state.close();
    await this.transport.close({
      archive: options.archive ?? this.archiveOnClose,
      deadlineMs: options.signal?.aborted ? 0 : left(),
    });
    this.controller.abort(new Error('session closed'));
    this.resolveClosed();
    if (failure !== undefined) throw failure;
  }

  /**
   * Stops this process's hold on the session because another process took it over
   * (docs/writer-lease.md): the writer stops for good (pending permission requests and later writes
   * reject with `error`, open turns stop without an end record), input ends, the RPC methods are
   * unregistered, and the socket leaves without `session-end` or archiving, which would end the new
   * holder's session. `signal` aborts with `error`, `closed` resolves, and `close()` resolves at once.
   */
  private revoke(error: SdkError): void {
    if (this.closing) return;
    this.logger.warn('another process took the session over; this one stops writing to it', {
      sessionId: this.id,
      code: error.code,
    });
    this.closing = holdingLoop(
      (async () => {
        this.writer.revoke(error);
        this.inbox.end();
        this.rpc.close();
        this.state.close();
        await this.transport.close({ end: false, archive: false, deadlineMs: 0 });
        this.controller.abort(error);
        this.resolveClosed();
      })(),
    );
  }

  private abortTurns(): { aborted: number } {
    return { aborted: this.writer.stopTurns(new Error('aborted by the user')) };
  }

  private async kill(): Promise<{ success: boolean; message: string }> {
    const now = Date.now();
    await this.state.updateMetadata((m) => ({
      ...m,
      lifecycleState: 'archived',
      lifecycleStateSince: now,
      archivedBy: 'cli',
      archiveReason: 'User terminated',
    }));
    // Not awaited: close() waits for this RPC's ack before it disconnects.
    this.close({ archive: true }).catch((error: unknown) =>
      this.logger.error('closing after killSession failed', { error: String(error) }),
    );
    return { success: true, message: 'Session archived' };
  }
}

/**
 * Takes over what a dead process left in `history` (docs/recovery.md), once `session` has its gate
 * and desk: what `connect({ sessionId })` does.
 */
export function takeOverSession(session: Session, history: readonly SessionMessage[], logger: Logger): void {
  internals.get(session)?.takeOver(history, logger);
}

/** Stops `session` in this process: another process took it over (docs/writer-lease.md). */
export function revokeSession(session: Session, error: SdkError): void {
  internals.get(session)?.revoke(error);
}

/** Gives `session` the release of its writer lease, run when it closes. */
export function releaseLeaseOnClose(session: Session, release: () => Promise<unknown>): void {
  const own = internals.get(session);
  if (own) own.releaseLease = release;
}

/** Resolves once `session` is closed, without counting as the program waiting for it. */
export function whenClosed(session: Session): Promise<void> {
  return internals.get(session)?.closed ?? Promise.resolve();
}

/** Whether the program may be waiting on `session` (docs/recovery.md, "When the program's code ends"). */
export function isWaitedOn(session: Session): boolean {
  return internals.get(session)?.waitedOn() ?? false;
}

/**
 * Marks the moment `connect()` hands `session` to the program: the RPC methods registered by then
 * are the SDK's; any registered later are the program's, which keep its process alive.
 */
export function handOver(session: Session): void {
  internals.get(session)?.handOver();
}

/** The incoming user messages of `session` for the SDK's own readers (the gate, the desk). */
export function incomingOf(session: Session): Observable<IncomingUserMessage> {
  return internals.get(session)?.incoming ?? session.incoming$;
}

function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/** Gives `session` its permission gate (what `connect()` does once the gate exists). */
export function attachGate(session: Session, gate: PermissionGate): void {
  internals.get(session)?.installGate(gate);
}
