import { EMPTY } from 'rxjs';
import type { Observable } from 'rxjs';
import type { RecordKey } from '../crypto/records.js';
import type { MessageContext } from '../protocol/messageContext.js';
import { SdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { newId } from '../protocol/ids.js';
import { legacyUserTextRecord } from '../protocol/legacyUserText.js';
import type {
  PermissionOption,
  PermissionRequestMessage,
  SessionMessage,
  UserMediaMessage,
  UserTextMessage,
} from '../protocol/sessionMessage.js';
import { asyncIterableOf } from '../ports/asyncIterable.js';
import type { IterateOptions } from '../ports/asyncIterable.js';
import type { RpcOutcome, SessionRpcCaller } from '../ports/rpc.js';
import type { StateObject } from '../ports/sessionState.js';
import type { Transport } from '../ports/transport.js';
import { foldPermissions } from '../stream/fold.js';
import { questionLedgerOf } from '../stream/questionLedger.js';
import type { QuestionMessage } from '../protocol/sessionMessage.js';
import { sendQuestionReply } from './questionReply.js';
import type { QuestionAnswerDraft, QuestionReply, SentQuestionReply } from './questionReply.js';
import { requirePlugin } from '../stream/plugins.js';
import type { AttachInput, AttachProgress } from '../stream/plugins.js';
import { SessionReader } from '../stream/sessionReader.js';
import type { ReaderEvent } from '../stream/sessionReader.js';
import { SessionWriter } from '../stream/sessionWriter.js';
import type { Delivered } from '../stream/types.js';
import { answerPermission, optionFor } from './permissionAnswer.js';
import { appPermissionBody, questionsInAgentState, requestsInAgentState } from './agentStateWaiting.js';
import type { SessionFormat } from './sessionFormat.js';
import type { AnswerChannels, PermissionChoice } from './permissionAnswer.js';
import type { AnswerResult, SentPermissionAnswer } from '../stream/answerResult.js';

/** The agent's presence as the server reports it (`activity` events, docs/wire.md §2.3). */
export interface AgentActivity {
  /** The agent's process is connected and sends its heartbeat. */
  readonly active: boolean;
  /** It is inside a turn. */
  readonly thinking: boolean;
}

/** The parts a {@link UserSession} is made of: `Account.session()` builds them on Node, the viewer in a browser. */
export interface UserSessionParts {
  readonly id: string;
  readonly key: RecordKey;
  /** The session's records, read and appended as the app does. */
  readonly transport: Transport;
  /** The agent's session RPCs (`abort`, `permission`). */
  readonly rpc: SessionRpcCaller;
  /** The decrypted metadata (its `summary.text` is the title). */
  readonly metadata?: StateObject;
  /** The agent's presence, from the account's socket; none when left out. */
  readonly activity$?: Observable<AgentActivity>;
  /**
   * How prompts are written: `legacy` (default) is the record today's Happy app writes, which
   * every Happy agent reads (docs/wire.md §6.1); `v2` is a v2 user `text`.
   */
  readonly promptFormat?: 'legacy' | 'v2';
  /**
   * How every other record is written: on a v1 session the v1 encoder (what today's Happy app
   * shows, docs/v1-format.md); by default each v2 message as it is.
   */
  readonly encode?: (message: SessionMessage, context: MessageContext) => readonly unknown[];
  /**
   * The format the session is written in (docs/user-side.md, "The session's format"): on `'v1'`
   * requests and questions wait in agentState and are answered by RPC only. Default: `'v1'` when
   * `encode` is given, else `'v2'`.
   */
  readonly format?: SessionFormat;
  /** Reads the session's agentState as it is now (a v1 session's requests and questions wait there). */
  readonly agentState?: () => Promise<StateObject>;
  /** The session's last `seq` when it was opened: {@link UserSession.events$} starts after it by default. */
  readonly seq?: number;
  /** Runs once `close()` delivered what was written (to stop listening to a socket, say). */
  readonly onClose?: () => void;
  readonly logger?: Logger;
}

/** Progress of the n-th file of a {@link UserSession.send} or {@link UserSession.attach}. */
export interface FileProgress extends AttachProgress {
  /** The file's position in the list given. */
  readonly index: number;
}

/** Options of {@link UserSession.send}. */
export interface SendOptions {
  /** Files sent before the text, as the user's `photo` / `video` / `file` messages (uploaded first). */
  readonly files?: readonly AttachInput[];
  /** Fields of the legacy record's `meta` (`permissionMode`, `model`, …; docs/wire.md §6.1). */
  readonly meta?: Readonly<Record<string, unknown>>;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: FileProgress) => void;
}

/** What {@link UserSession.send} stored. */
export interface SentPrompt {
  /** The prompt as a v2 user `text` (stored in the session's prompt format). */
  readonly message: UserTextMessage;
  /** The files' messages, in order. */
  readonly files: readonly UserMediaMessage[];
  /** Where the text landed. */
  readonly delivered: Delivered;
}

/** Options of {@link UserSession.attach}. */
export interface AttachTurnOptions {
  /** A line of agent text after the files. */
  readonly text?: string;
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: FileProgress) => void;
}

/** What {@link UserSession.attach} stored: one turn with the files' messages. */
export interface AttachedTurn {
  readonly turn: string;
  readonly messages: readonly SessionMessage[];
}

/** Options of {@link UserSession.answer} and {@link UserSession.answerAll}. */
export interface AnswerOptions {
  /** `both` (default): the stream record, then the RPC; or only one of them. */
  readonly channels?: AnswerChannels;
}

/** The reason today's app gives its `abort` RPC (docs/wire.md §7.2); the agent's turn signal carries it. */
const STOP_REASON = 'The user stopped this turn.';

/**
 * One session seen from the user's side, as the Happy app sees it (docs/architecture.md, "The
 * user's side"): it follows the agent's stream, sends prompts and files as the user, stops the
 * current turn through the `abort` RPC, answers permission requests on the stream and by RPC, and
 * can add a turn of files for the agent (`happy-session attach`). It never ends, archives or
 * heartbeats the agent's session: closing it only stops listening. Browser-safe: on Node
 * `Account.session(id)` opens one; the relay's viewer builds one from its own parts.
 */
export class UserSession {
  readonly id: string;
  readonly key: RecordKey;
  readonly metadata: StateObject;
  /** The format the session is written in, and this object writes in (docs/v1-format.md). */
  readonly format: SessionFormat;
  readonly reader: SessionReader;
  /** Appends the user's records (and the agent turn of {@link UserSession.attach}). */
  readonly writer: SessionWriter;
  /** The agent's presence as the server reports it; never completes while the session is open. */
  readonly activity$: Observable<AgentActivity>;
  private readonly rpc: SessionRpcCaller;
  private readonly readAgentState: () => Promise<StateObject>;
  private readonly promptFormat: 'legacy' | 'v2';
  private readonly encodeOther:
    ((message: SessionMessage, context: MessageContext) => readonly unknown[]) | undefined;
  private readonly promptMeta = new Map<string, Readonly<Record<string, unknown>>>();
  private readonly written = new Set<string>();
  private readonly onClose: (() => void) | undefined;
  private readonly openedAtSeq: number;
  private closing: Promise<void> | undefined;

  constructor(parts: UserSessionParts) {
    this.id = parts.id;
    this.key = parts.key;
    this.metadata = parts.metadata ?? {};
    this.rpc = parts.rpc;
    this.format = parts.format ?? (parts.encode ? 'v1' : 'v2');
    this.readAgentState = parts.agentState ?? (() => Promise.resolve({}));
    this.promptFormat = parts.promptFormat ?? 'legacy';
    this.encodeOther = parts.encode;
    this.activity$ = parts.activity$ ?? EMPTY;
    this.onClose = parts.onClose;
    this.openedAtSeq = parts.seq ?? 0;
    this.reader = new SessionReader({ transport: parts.transport, key: parts.key });
    this.writer = new SessionWriter({
      transport: parts.transport,
      key: parts.key,
      encode: (message, context) => this.recordOf(message, context),
      ...(parts.logger ? { logger: parts.logger } : {}),
    });
    this.writer.messages$.subscribe((message) => this.written.add(message.id));
  }

  /** `metadata.summary.text`, the title the app shows. */
  get title(): string | undefined {
    const summary = this.metadata.summary as { text?: unknown } | undefined;
    return typeof summary?.text === 'string' ? summary.text : undefined;
  }

  /**
   * The stream live, from after `afterSeq`: by default from now (the records stored after the
   * session was opened, so a script run again sees only what is new), `0` for the whole session.
   * Each record once, in `seq` order, decrypted and validated (a record that fails is an error
   * event, and reading goes on). Reads that fail on a network error or a restarting server are
   * retried. What already waits is {@link UserSession.pending}.
   */
  events$(options: { afterSeq?: number } = {}): Observable<ReaderEvent> {
    return this.reader.events$({ afterSeq: options.afterSeq ?? this.openedAtSeq });
  }

  /** {@link UserSession.events$} as an async iterable, until `signal` aborts. */
  events(options: { afterSeq?: number } & IterateOptions = {}): AsyncGenerator<ReaderEvent> {
    return this.reader.events({ ...options, afterSeq: options.afterSeq ?? this.openedAtSeq });
  }

  /** {@link UserSession.activity$} as an async iterable, until `signal` aborts. */
  activity(options: IterateOptions = {}): AsyncGenerator<AgentActivity> {
    return asyncIterableOf(this.activity$, options);
  }

  /** True for a message this object appended (the viewer says "you" for such an answer). */
  wrote(messageId: string): boolean {
    return this.written.has(messageId);
  }

  /**
   * The permission requests waiting now: in a v2 session, those stored with neither an answer nor
   * an end of their call; in a v1 session, those in `agentState.requests` (its `id` is the
   * agentState key the app's answer names, docs/user-side.md, "The session's format").
   */
  async pending(): Promise<PermissionRequestMessage[]> {
    if (this.format === 'v1') {
      const [state, messages] = await Promise.all([this.readAgentState(), this.reader.messages()]);
      return requestsInAgentState(state, messages);
    }
    return foldPermissions(await this.reader.messages());
  }

  /**
   * The agent's questions waiting now (docs/questions.md): in a v2 session, those stored with no
   * `question-end` in a turn still open; in a v1 session, those in `agentState.communications`.
   */
  async questions(): Promise<QuestionMessage[]> {
    if (this.format === 'v1') return questionsInAgentState(await this.readAgentState());
    return questionLedgerOf(await this.reader.messages()).pending;
  }

  /**
   * Answers one of the agent's questions (or dismisses it with `'cancelled'`) as today's app does:
   * by the `communication` RPC (docs/questions.md, "Answering"). Resolves with the agent's typed
   * result (`applied`, or `refused` with a `questions.*` code). When no agent answers the RPC (it
   * died, or is restarting), the answer is written in a v2 stream as the user's `question-answer`
   * record, which the next agent process applies (`recorded`, docs/recovery.md); a v1 stream
   * cannot hold it (`unreachable`).
   */
  answerQuestion(questionId: string, reply: QuestionReply): Promise<SentQuestionReply> {
    const record = this.encodeOther
      ? undefined
      : (body: QuestionAnswerDraft) => this.writer.append({ role: 'user', ...body });
    return sendQuestionReply(this.rpc, questionId, reply, record);
  }

  /**
   * Sends a prompt as the app does: each file first, uploaded and then referenced by the user's
   * `photo` / `video` / `file` message (docs/wire.md §6.1: attachments come before the text), then
   * the text. Resolves once everything is stored; an agent's `session.prompts()` yields the text
   * with the files as its `attachments`.
   *
   * @throws {SdkError} `media.*` for a file that cannot be prepared or uploaded (nothing of the
   *   prompt is sent after it); `stream.*` when the records cannot be stored.
   */
  async send(text: string, options: SendOptions = {}): Promise<SentPrompt> {
    const files: UserMediaMessage[] = [];
    const deliveries: Array<Promise<Delivered>> = [];
    const inputs = options.files ?? [];
    if (inputs.length > 0) {
      const media = requirePlugin(this.writer.plugins, 'media');
      for (const [index, input] of inputs.entries()) {
        const uploaded = await media.upload(input, {
          ...(options.signal ? { signal: options.signal } : {}),
          onProgress: (p) => options.onProgress?.({ index, ...p }),
        });
        const { message, delivery } = this.writer.appendMessage(
          { ...uploaded.content, id: uploaded.id, role: 'user' },
          uploaded.context ? { context: uploaded.context } : {},
        );
        files.push(message as UserMediaMessage);
        deliveries.push(delivery);
      }
    }
    const id = newId();
    if (options.meta) this.promptMeta.set(id, options.meta);
    const { message, delivery } = this.writer.appendMessage({ id, role: 'user', type: 'text', text });
    await Promise.all(deliveries);
    return { message: message as UserTextMessage, files, delivered: await delivery };
  }

  /**
   * Stops the agent's current turn with the `abort` RPC, as the app's stop button does
   * (docs/wire.md §7.2): the SDK's agent aborts every open turn's signal and answers `{aborted}`.
   * Never rejects: an agent that is not connected answers `RPC method not available`.
   */
  stop(options: { readonly reason?: string } = {}): Promise<RpcOutcome> {
    return this.rpc('abort', { reason: options.reason ?? STOP_REASON });
  }

  /**
   * Answers a permission request (a request, or the `callId` of a pending one) with `choice`:
   * the user's `permission-response` in the stream, then the agent's `permission` RPC
   * (see {@link answerPermission}).
   *
   * A request that is no longer pending (answered, or its call ended) is left alone: the result
   * says `settled` and nothing is written, so a script that runs again adds no second response.
   * A request is named by its `callId` or its own id (in a v1 session, its agentState key).
   *
   * A v1 session has no record for an answer: it is sent as today's app sends it, by the
   * `permission` RPC with the app's body (docs/wire.md §7.3), and `recorded` is `undefined`.
   *
   * @throws {SdkError} `session.request_not_pending` for an id with no pending request;
   *   `session.option_not_offered` when the request has no option for `choice`;
   *   `session.channel_not_in_format` for `channels: 'stream'` on a v1 session.
   */
  async answer(
    request: PermissionRequestMessage | string,
    choice: PermissionChoice | string,
    options: AnswerOptions = {},
  ): Promise<AnswerResult<'user'>> {
    this.checkChannels(options.channels);
    if (typeof request === 'string') {
      const found = await this.pendingRequest(request);
      return this.sendAnswer(found, optionFor(found, choice), options.channels);
    }
    const option = optionFor(request, choice);
    const pending = (await this.pending()).some((r) => r.callId === request.callId);
    if (!pending) return { status: 'settled', request };
    return this.sendAnswer(request, option, options.channels);
  }

  /**
   * Answers every pending request with `choice` ("Allow all"), each exactly once, in request
   * order. Requests without an option for `choice` are left alone.
   */
  async answerAll(
    choice: PermissionChoice | string,
    options: AnswerOptions = {},
  ): Promise<SentPermissionAnswer[]> {
    this.checkChannels(options.channels);
    const answers: SentPermissionAnswer[] = [];
    for (const request of await this.pending()) {
      let option;
      try {
        option = optionFor(request, choice);
      } catch {
        continue;
      }
      answers.push(this.sendAnswer(request, option, options.channels));
    }
    return answers;
  }

  /** On a v1 session, the app's RPC alone; on v2, {@link answerPermission}'s channels. */
  private sendAnswer(
    request: PermissionRequestMessage,
    option: PermissionOption,
    channels: AnswerChannels | undefined,
  ): SentPermissionAnswer {
    if (this.format === 'v2') return answerPermission(this.writer, this.rpc, request, option, channels);
    const rpc = this.rpc('permission', appPermissionBody(request.id, option.kind));
    return { status: 'sent', request, option, recorded: undefined, rpc };
  }

  /** A v1 stream has no record for an answer: asking for one is an error, never a silent "sent". */
  private checkChannels(channels: AnswerChannels | undefined): void {
    if (this.format !== 'v1' || channels !== 'stream') return;
    throw new SdkError(
      'session.channel_not_in_format',
      `Session ${this.id} is written in v1, which has no record for a permission answer.`,
      {
        hint: 'answer by RPC, as the Happy app does (leave the channel out, or `--via rpc`)',
        details: { sessionId: this.id, format: this.format, channel: channels },
      },
    );
  }

  /**
   * Adds a turn of the agent's with `inputs` attached (`happy-session attach`): every file is
   * prepared and uploaded first, then `turn-start`, each file's `photo` / `video` / `file`
   * message, an optional text and `turn-end`. A file that fails rejects before anything is
   * appended (uploads already made stay unreferenced).
   *
   * @throws {SdkError} `media.*` as `turn.attach()`.
   */
  async attach(inputs: readonly AttachInput[], options: AttachTurnOptions = {}): Promise<AttachedTurn> {
    // Every file is prepared and uploaded before the turn starts: a file that cannot be sent
    // (missing, too large, Ctrl-C) leaves nothing in the agent's stream.
    const media = requirePlugin(this.writer.plugins, 'media');
    const uploads = [];
    for (const [index, input] of inputs.entries()) {
      uploads.push(
        await media.upload(input, {
          ...(options.signal ? { signal: options.signal } : {}),
          onProgress: (p) => options.onProgress?.({ index, ...p }),
        }),
      );
    }
    const turn = this.writer.turn();
    const messages: SessionMessage[] = uploads.map(
      ({ id, content, context }) =>
        this.writer.appendMessage(
          { ...content, id, role: 'agent', turn: turn.id } as SessionMessage,
          context ? { context } : {},
        ).message,
    );
    if (options.text !== undefined) turn.text(options.text);
    await turn.end('completed');
    return { turn: turn.id, messages };
  }

  /** Delivers what was written and stops listening. The agent's session goes on. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    try {
      await this.writer.close();
    } finally {
      this.onClose?.();
    }
  }

  private async pendingRequest(callId: string): Promise<PermissionRequestMessage> {
    const request = (await this.pending()).find((r) => r.callId === callId || r.id === callId);
    if (request) return request;
    throw new SdkError(
      'session.request_not_pending',
      `No permission request is waiting for call ${callId}.`,
      {
        hint: 'it was answered already, its call ended, or the id is wrong; `happy-session answer <session>` lists what waits',
        details: { sessionId: this.id, callId },
      },
    );
  }

  /** A user text goes out as the app's legacy record unless the session writes v2 prompts. */
  private recordOf(message: SessionMessage, context: MessageContext): readonly unknown[] {
    if (this.promptFormat === 'legacy' && message.role === 'user' && message.type === 'text') {
      const meta = this.promptMeta.get(message.id);
      this.promptMeta.delete(message.id);
      return [legacyUserTextRecord(message.text, meta)];
    }
    return this.encodeOther ? this.encodeOther(message, context) : [message];
  }
}
