import { Subject } from 'rxjs';
import { SdkError, isSdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { MessageContext } from '../protocol/messageContext.js';
import type { SessionMessage } from '../protocol/sessionMessage.js';
import type { PermissionGateOptions } from '../gate/gate.js';
import { SessionReader } from '../stream/sessionReader.js';
import { SessionWriter } from '../stream/sessionWriter.js';
import { lastPromptTaken } from '../stream/succession.js';
import type { OutboxOptions } from '../stream/outbox.js';
import type { RedactOptions } from '../stream/redactor.js';
import { resolveAccountAccess } from '../transport/accountAccess.js';
import { accountFingerprint } from '../transport/accountFingerprint.js';
import type { Credentials } from '../transport/credentials.js';
import type { HappyHttp } from '../transport/httpClient.js';
import type { HappyEnv } from '../transport/happyHome.js';
import { loadGateKey } from '../transport/gateKeyFile.js';
import { sessionRecordKey } from '../crypto/recordSeal.js';
import { HappyServerTransport } from '../transport/happyServerTransport.js';
import { HttpPushNotifier } from '../transport/pushNotifier.js';
import { ServerSessionState } from '../transport/serverSessionState.js';
import {
  Session,
  attachGate,
  handOver,
  incomingOf,
  releaseLeaseOnClose,
  revokeSession,
  takeOverSession,
  whenClosed,
} from './session.js';
import { WriterLease } from './writerLease.js';
import { DEFAULT_HEARTBEAT_INTERVAL_MS, DEFAULT_IDLE_HEARTBEAT_INTERVAL_MS } from '../transport/heartbeat.js';
import type { IncomingUserMessage } from './incomingUserMessage.js';
import { DEFAULT_SERVER_WAIT_MS, ServerWait } from './serverWait.js';
import { DEFAULT_SHUTDOWN_DEADLINE_MS, closeOnShutdown } from './shutdownSignals.js';
import { closeAtProgramEnd } from './programEnd.js';
import { holdingLoop } from './loopHold.js';
import type { ShutdownOptions } from './shutdownSignals.js';
import { sessionMetadata } from '../transport/sessionMetadata.js';
import { openSessionRecord, postSessionRecord, prepareSessionRecord } from '../transport/sessionRecord.js';
import type { SessionRecord } from '../transport/sessionRecord.js';
import type { StateObject } from '../ports/sessionState.js';
import { SocketRpc } from '../transport/socketRpc.js';
import { formatShownBy } from '../transport/serverFormat.js';
import type { StreamFormat } from '../transport/serverFormat.js';

/** Gate settings a caller may give; the channels come from the session. */
export type GateSettings = Omit<
  PermissionGateOptions,
  'writer' | 'rpc' | 'incoming' | 'state' | 'push' | 'history' | 'logger'
>;

/** Options of {@link connect}. */
export interface ConnectOptions {
  /** Metadata fields added to (or replacing) the defaults of a new session (docs/wire.md §4.2). */
  readonly metadata?: StateObject;
  /** Session title (`metadata.summary.text`); default the working directory's name. */
  readonly title?: string;
  /** Initial agentState of a new session; `{controlledByUser: false}` is always the base. */
  readonly agentState?: StateObject;
  /** Server URL; default `HAPPY_SERVER_URL`, then settings.json, then Happy's server (§0). */
  readonly server?: string;
  /** Credentials; default loaded from the Happy home directory (§1.5). */
  readonly credentials?: Credentials;
  /** Happy home directory; default `HAPPY_HOME_DIR` or `~/.happy`. */
  readonly homeDir?: string;
  /** Environment to read `HAPPY_*` from; default `process.env`. */
  readonly env?: HappyEnv;
  /**
   * Wire format of the stream. `'v1'` stores the v1 / legacy records today's Happy app renders,
   * lossy where v1 has no equivalent (`createV1Encoder`, docs/v1-format.md); `'v2'` stores each v2
   * message as is, which the embedded relay's viewer shows and today's app does not. `'auto'`
   * (default) writes v2 on the embedded relay and v1 on any other server, so the session shows up
   * wherever it is watched ({@link Session.format} says which). The writer's API, `messages$` and
   * the reader are v2 either way.
   */
  readonly format?: 'auto' | 'v2' | 'v1';
  /** Open this existing session instead of creating one (needs the master secret). */
  readonly sessionId?: string;
  /**
   * With `sessionId`: take the session over even while another live process holds its writer
   * lease. That process is told (its pending permission requests and later writes reject with
   * `session.taken_over`) and stops writing; this one ends what it left open, as a successor does.
   * Without it, a live holder makes `connect()` fail with `session.in_use` (docs/writer-lease.md).
   */
  readonly takeOver?: boolean;
  /** Archive the session on `close()`; default true. */
  readonly archiveOnClose?: boolean;
  readonly logger?: Logger;
  /**
   * Permission gate settings (mode, rules, ceiling, audit, timeouts...), or `false` for no gate.
   * The gate answers `call.requestPermission()` from the stream, the `permission` RPC and
   * `session.gate.answer()`, follows the app's mode picks and writes the real mode to the
   * metadata. `workspaceRoot` defaults to the working directory (`metadata.path`, else
   * `process.cwd()`): edits are allowed automatically only inside it (docs/permissions.md).
   */
  readonly permissions?: GateSettings | false;
  /**
   * Secret redaction of the writer (docs/redaction.md): on by default with the well-known token
   * formats; options extend the detector table or register values; `false` turns it off.
   */
  readonly redact?: RedactOptions | boolean;
  /** Outbox tuning of the writer. */
  readonly outbox?: OutboxOptions;
  /**
   * How long to wait for a server that does not answer yet (starting or restarting): the setup
   * requests are tried again with backoff, each try logged, until this much time has passed;
   * then `connect()` fails with `transport.network`. Default 5 s; 0 tries once.
   */
  readonly serverWaitMs?: number;
  /**
   * Ends the session gracefully when the process is stopped (default on): on SIGINT, SIGTERM or
   * SIGHUP, or an exception or rejection the program leaves uncaught. Open turns end `cancelled`,
   * pending permission requests are cancelled, the writer delivers what it holds within
   * `deadlineMs` (default 5 s), the session ends, and the process exits 130 (SIGINT), 143
   * (SIGTERM), 129 (SIGHUP) or 1 (uncaught, printed as Node prints it) unless the program listens
   * for that itself; what the program still writes to the stopped turns settles
   * `stream.turn_stopped`, and what it throws meanwhile is logged. The same signal relayed by a
   * parent (`npx`, `npm run`, tsx) within a second is the same stop; a later one exits at once.
   * The same when the program's own code ends without `close()` and it waits on nothing of the
   * session's (Node's `beforeExit`): then the process exits with the program's status, or 1 when
   * records were not stored by the deadline (docs/recovery.md, "When the program's code ends").
   * `false` leaves all of it to the program (docs/transport.md, "Graceful shutdown").
   */
  readonly shutdownSignals?: ShutdownOptions | false;
  /** Transport tuning. `session-alive` period while a turn is open (default 2 s). */
  readonly heartbeatIntervalMs?: number;
  /** `session-alive` period while no turn is open (default 30 s, docs/transport.md, "One socket per account"). */
  readonly idleHeartbeatIntervalMs?: number;
  readonly reconnectionDelayMs?: number;
  readonly reconnectionDelayMaxMs?: number;
  readonly httpTimeoutMs?: number;
  readonly fetch?: typeof fetch;
}

/**
 * Connects to a Happy server (or the embedded relay) and returns a live {@link Session}: picks the
 * stream format (`format`), picks the server and credentials from the environment as the Happy CLI
 * does, waits up to `serverWaitMs` for a server that does not answer yet, mints a token from the
 * master secret when there is none (and saves it to `agent.key`) or when the server refuses the one
 * it has, creates a session (fresh tag, encrypted metadata, wrapped data key;
 * then agentState from version 0) or opens `sessionId`, connects the session socket, registers
 * the built-in RPC handlers and installs the media pipeline (`attach()` uploads to the same server;
 * `session.fetchMedia()` reads attachments back), and ends the session gracefully on SIGINT,
 * SIGTERM, SIGHUP or an uncaught error unless `shutdownSignals: false`.
 *
 * Opening `sessionId` takes the session's writer lease, so that one live process writes a session
 * (docs/writer-lease.md).
 *
 * @throws {SdkError} `transport.format_unsupported` for a format other than `'auto'`, `'v2'`, `'v1'`;
 *   `session.in_use` when another live process holds `sessionId`'s lease and `takeOver` is not set;
 *   `credentials.*` when no usable credentials are found; `transport.*` when the server cannot be
 *   reached or refuses.
 * @see docs/wire.md §0-§7
 */
export function connect(options: ConnectOptions = {}): Promise<Session> {
  // The session's socket does not keep the process alive (docs/recovery.md, "When the program's
  // code ends"): opening does, until the session is the program's.
  return holdingLoop(open(options));
}

async function open(options: ConnectOptions): Promise<Session> {
  const asked: unknown = options.format ?? 'auto';
  if (asked !== 'auto' && asked !== 'v2' && asked !== 'v1') {
    throw new SdkError('transport.format_unsupported', `There is no ${String(asked)} output format.`, {
      hint: "use format: 'auto' (the default), 'v1' (what today's Happy app renders) or 'v2'",
    });
  }
  const logger = options.logger ?? silentLogger;
  const wait = new ServerWait(options.serverWaitMs ?? DEFAULT_SERVER_WAIT_MS, logger);
  const { home, credentials, token, http } = await wait.run(() =>
    resolveAccountAccess({
      ...pick(options, ['server', 'credentials', 'homeDir', 'env', 'httpTimeoutMs', 'fetch']),
      logger,
    }),
  );
  const sessionId = options.sessionId;
  const [format, record]: [StreamFormat, SessionRecord] = await Promise.all([
    asked === 'auto' ? formatShownBy(http, logger) : asked,
    sessionId ? wait.run(() => openSessionRecord(http, credentials, sessionId, logger)) : newSessionRecord(),
  ]);

  async function newSessionRecord(): Promise<SessionRecord> {
    // Prepared once: every try sends the same tag and key, so a lost answer never makes two sessions.
    const prepared = await prepareSessionRecord(
      credentials,
      sessionMetadata(options.metadata, {
        ...(options.title !== undefined ? { title: options.title } : {}),
        happyHomeDir: home,
      }),
    );
    return wait.run(() => postSessionRecord(http, prepared));
  }

  const lease = new WriterLease({
    sessionId: record.id,
    idleHeartbeatMs: Math.max(
      options.heartbeatIntervalMs ?? DEFAULT_HEARTBEAT_INTERVAL_MS,
      options.idleHeartbeatIntervalMs ?? DEFAULT_IDLE_HEARTBEAT_INTERVAL_MS,
    ),
  });
  const takeOver = options.takeOver === true;
  // A live holder refuses before anything is connected; the compare-and-swap below judges again.
  if (sessionId) lease.claim(record.agentState.value, record, takeOver);

  const transport = new HappyServerTransport({
    serverUrl: http.serverUrl,
    token,
    sessionId: record.id,
    // This process's sessions of one account share one socket (docs/transport.md, "One socket per account").
    account: accountFingerprint(credentials),
    logger,
    ...pick(options, [
      'heartbeatIntervalMs',
      'idleHeartbeatIntervalMs',
      'reconnectionDelayMs',
      'reconnectionDelayMaxMs',
      'httpTimeoutMs',
      'fetch',
    ]),
  });
  try {
    await transport.ready();
    const state = new ServerSessionState({
      transport,
      key: record.key,
      metadata: record.metadata,
      agentState: record.agentState,
      logger,
      // Every write checks this process still holds the session (docs/writer-lease.md).
      guard: (agentState) => lease.check(agentState),
    });
    if (options.sessionId) {
      await state.updateAgentState((current) => lease.claim(current, record, takeOver));
    }
    lease.hold(() => !transport.closed);
    if (!options.sessionId) {
      await state.updateAgentState((current) =>
        lease.stamped({
          ...current,
          controlledByUser: false,
          // No prompt taken yet: a successor delivers every prompt after this (docs/recovery.md, "Prompts").
          promptsTakenThrough: record.seq,
          // The format this session is written in, for the user's side while no record says it (docs/user-side.md).
          streamFormat: format,
          ...options.agentState,
        }),
      );
    } else if (options.metadata) {
      const extra = options.metadata;
      await state.updateMetadata((current) => ({ ...current, ...extra }));
    }
    const writer = new SessionWriter({
      transport,
      key: record.key,
      logger,
      ...(options.outbox ? { outbox: options.outbox } : {}),
      ...(options.redact !== undefined ? { redact: options.redact } : {}),
      ...(format === 'v1' ? { encode: await v1Encode() } : {}),
    });
    // The media pipeline and the gate load here, not when the package is imported.
    const [{ MediaPipeline }, { MediaReader }, { HappyUploader }, { PermissionGate }, { QuestionDesk }] =
      await Promise.all([
        import('../media/attach.js'),
        import('../media/fetchMedia.js'),
        import('../transport/happyUploader.js'),
        import('../gate/gate.js'),
        import('../questions/questionDesk.js'),
      ]);
    // Attachments go to the same server with the same token (docs/wire.md §8).
    const uploader = new HappyUploader({
      http,
      sessionId: record.id,
      logger,
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
    MediaPipeline.create({ writer, uploader, key: record.key, logger, posters: format === 'v1' });
    const reader = new SessionReader({ transport, key: record.key });
    const rpc = new SocketRpc(transport.socket, record.id, record.key, logger);
    const push = new HttpPushNotifier(transport.http, record.id);
    // An existing session may hold requests and questions a dead process left pending, and granted rules.
    const history = options.sessionId ? await reader.messages() : [];
    // What this process writes comes after what the stream holds, in the app's order by time.
    if (history.length > 0) writer.continueAfter(history.reduce((t, m) => Math.max(t, m.time), 0));
    const title = (record.metadata.value as { summary?: { text?: unknown } }).summary?.text;
    // The desk reads the people's stream answers from the session's inbox, made just below.
    const answers = new Subject<IncomingUserMessage>();
    const questions = QuestionDesk.create({
      writer,
      rpc,
      state,
      push,
      history,
      incoming: answers,
      logger,
      ...(typeof title === 'string' ? { sessionTitle: title } : {}),
    });
    const session = new Session({
      id: record.id,
      format,
      key: record.key,
      transport,
      writer,
      reader,
      rpc,
      state,
      push,
      questions,
      media: new MediaReader({ uploader, key: record.key }),
      inputAfterSeq: options.sessionId ? promptsTakenThrough(history, state, record.seq) : record.seq,
      openedAtSeq: record.seq,
      ...(options.archiveOnClose !== undefined ? { archiveOnClose: options.archiveOnClose } : {}),
      logger,
    });
    incomingOf(session).subscribe(answers);
    if (options.permissions !== false) {
      const machineKey = loadGateKey(home, logger);
      attachGate(
        session,
        await PermissionGate.create({
          // Edits are confined to the agent's working directory unless the caller names another root.
          workspaceRoot: workingDirectory(options.metadata),
          // The gate's records are sealed with this machine's key, so a restart trusts its own.
          ...(machineKey ? { recordKey: sessionRecordKey(machineKey, record.id) } : {}),
          ...options.permissions,
          writer,
          rpc: session.rpc,
          incoming: incomingOf(session),
          state,
          push: session.push,
          history,
          logger,
          ...(typeof title === 'string' ? { sessionTitle: title } : {}),
        }),
      );
    }
    followLease(session, lease, logger);
    // A dead process's turns, calls and questions are ended, and what it left is told to the host.
    if (options.sessionId) takeOverSession(session, history, logger);
    if (options.shutdownSignals !== false) closeOnShutdown(session, { ...options.shutdownSignals, logger });
    closeAtProgramEnd(session, {
      close: options.shutdownSignals !== false,
      deadlineMs: (options.shutdownSignals || undefined)?.deadlineMs ?? DEFAULT_SHUTDOWN_DEADLINE_MS,
      logger,
    });
    handOver(session);
    return session;
  } catch (error) {
    await transport.close({ end: false, archive: false });
    // A session this call made and could not serve (its socket refused, say) holds nothing: it goes.
    if (!sessionId) await forgetNewSession(http, record.id, logger);
    throw error;
  }
}

/**
 * Keeps `session` to its writer lease (docs/writer-lease.md): another holder seen in agentState
 * stops this process's writing (`session.taken_over`); after a reconnect, when an update may have
 * been missed, the lease is rewritten (which checks it); on close it is released.
 */
function followLease(session: Session, lease: WriterLease, logger: Logger): void {
  lease.onLost((error) => revokeSession(session, error));
  session.state.changes$.subscribe((change) => {
    if (change.field === 'agentState') lease.watch(change.value);
  });
  const quiet = (what: string) => (error: unknown) => {
    if (!isSdkError(error, 'session.taken_over')) logger.warn(what, { error: String(error) });
  };
  session.transport.reconnected$.subscribe(({ reconnect }) => {
    if (reconnect)
      session.state
        .updateAgentState((current) => lease.renewed(current))
        .catch(quiet('the writer lease was not renewed after a reconnect'));
  });
  releaseLeaseOnClose(session, () =>
    session.state
      .updateAgentState((current) => lease.released(current))
      .catch(quiet('the writer lease was not released')),
  );
  void whenClosed(session).then(() => lease.forget());
}

/**
 * Deletes the session `connect()` just created when it fails before returning it, so a refused
 * connect leaves no empty session in the person's list. Logged, never thrown: the caller's error
 * is the one that matters.
 */
async function forgetNewSession(http: HappyHttp, id: string, logger: Logger): Promise<void> {
  try {
    await http.request('DELETE', `/v1/sessions/${encodeURIComponent(id)}`);
  } catch (error) {
    logger.warn('could not delete the session connect() created before it failed', {
      sessionId: id,
      error: String(error),
    });
  }
}

/**
 * The agent's working directory: the `path` the caller gives in `metadata`, else this process's.
 * Never the stored metadata of a reopened session, which any holder of the session key can write.
 */
function workingDirectory(metadata: StateObject | undefined): string {
  return typeof metadata?.path === 'string' && metadata.path.length > 0 ? metadata.path : process.cwd();
}

/**
 * Where a reopened session's input starts: after the last prompt a previous process took (its
 * `prompt-taken` marks, or agentState's `promptsTakenThrough`, which v1 streams need), so a prompt
 * sent while no agent ran is delivered, once. A session with neither (written before marks
 * existed) starts at `openedAt`, as it always did.
 */
function promptsTakenThrough(
  history: readonly SessionMessage[],
  state: ServerSessionState,
  openedAt: number,
): number {
  const marked = state.agentState.promptsTakenThrough;
  const inState = typeof marked === 'number' && Number.isInteger(marked) && marked >= 0 ? marked : undefined;
  const inStream = lastPromptTaken(history);
  if (inState === undefined && inStream === undefined) return openedAt;
  return Math.min(openedAt, Math.max(inState ?? -1, inStream ?? -1));
}

/** A fresh v1 encoder per session: it keeps the labels of open turns and the last time. Loaded when used. */
async function v1Encode(): Promise<(message: SessionMessage, context: MessageContext) => readonly unknown[]> {
  const { createV1Encoder } = await import('../protocol/v1/toV1.js');
  const encoder = createV1Encoder();
  return (message, context) => encoder.encode(message, context);
}

function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const k of keys) if (source[k] !== undefined) out[k] = source[k];
  return out;
}
