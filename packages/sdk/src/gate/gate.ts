import type { Observable } from 'rxjs';
import { safely } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { asyncIterableOf } from '../ports/asyncIterable.js';
import type { IterateOptions } from '../ports/asyncIterable.js';
import type { RpcContext } from '../ports/rpc.js';
import type { PermissionMode } from '../policy/modes.js';
import { DEFAULT_PERMISSION_OPTIONS, validateOptions } from '../policy/options.js';
import type { CompiledRules } from '../policy/policy.js';
import type { SessionRule } from '../policy/sessionRules.js';
import type { ShellParser } from '../policy/shell.js';
import { loadShellParser } from '../policy/shell.js';
import { newId } from '../protocol/ids.js';
import type {
  PermissionOption,
  PermissionResponseMessage,
  SessionMessage,
} from '../protocol/sessionMessage.js';
import { ledgerOf } from '../stream/permissionLedger.js';
import type { LedgerOptions } from '../stream/permissionLedger.js';
import type { GatedCall, GateWriter } from '../stream/gatePorts.js';
import type {
  PermissionDecision,
  PermissionRequestOptions,
  PreviewedChange,
  PermissionRuntime,
  PluginHost,
} from '../stream/plugins.js';
import type { Delivery, StreamLifecycleEvent } from '../stream/types.js';
import { AgentStateMirror } from './agentStateMirror.js';
import { answerFromLocal, answerFromRecord } from './answers.js';
import { answerFromRpcBody } from './rpcAnswer.js';
import type { LocalAnswer } from './answers.js';
import { cancelledDecision, decisionFromPolicy } from './decision.js';
import type { GateEvent } from './gateEvents.js';
import type { PermissionGateOptions, StreamInput } from './gateOptions.js';
import { checkGateOptions } from './gateOptions.js';
import { GatePolicy } from './gatePolicy.js';
import { GateRecords } from './gateRecords.js';
import type { ModeSource } from './modeControl.js';
import { ModeControl, remoteAnswersAccepted } from './modeControl.js';
import { ModeMetadata } from './modeMetadata.js';
import { PermissionPush } from './permissionPush.js';
import type { InterruptedRequest } from './interrupted.js';
import { rebuildRules, REVOKE_PREFIX } from './recovery.js';
import { GateRequests, runNow } from './requests.js';
import type { AnswerResult } from '../stream/answerResult.js';
import { refuse } from './refuse.js';
import { grantRules } from './ruleGrants.js';
import { validateTimeoutPolicy } from './timeouts.js';
import type { TimeoutPolicy } from './timeouts.js';

export type { PermissionGateOptions, StreamInput } from './gateOptions.js';
export type { ModeSource } from './modeControl.js';

/**
 * Holds every gated tool call until the person on the other end says so (docs/permissions.md).
 * A request is answered by the first valid decision of: local policy (mode and rules), the stream
 * (a user-role `permission-response` after the request), the `permission` RPC, or the local
 * program ({@link PermissionGate.answer}). Every answer gets a typed `AnswerResult<'gate'>`.
 * The agent records each answer it applies in the stream, so a replay after a restart reaches the
 * same decisions and rules (docs/permissions.md, "One arbitration"). Nothing here throws into the
 * host for bad input, and no error path allows a call.
 *
 * Every answer takes one road (docs/architecture.md, "One arbiter"): its channel parses it into an
 * `Answer`, the arbiter decides, the gate records the decision, then releases the waiter.
 */
export class PermissionGate implements PermissionRuntime {
  private readonly writer: GateWriter & PluginHost;
  private readonly logger: Logger;
  private readonly policy: GatePolicy;
  private readonly modes: ModeControl;
  private readonly records: GateRecords;
  private readonly mirror: AgentStateMirror | undefined;
  private readonly requests: GateRequests;
  /** Ends the adapters and channels {@link PermissionGate.start} set up. */
  private readonly teardown: Array<() => void> = [];
  /** Calls that had a request, in the history or here: a later request of one needs answers that name it. */
  private readonly requestedCalls = new Set<string>();
  private disposed = false;
  private interruptedRequests: readonly InterruptedRequest[] = [];

  private constructor(
    private readonly options: PermissionGateOptions,
    shell: ShellParser,
    rules: CompiledRules,
    mode: PermissionMode,
    ceiling: PermissionMode,
  ) {
    this.writer = options.writer;
    this.logger = options.logger ?? silentLogger;
    this.records = new GateRecords(options.recordKey);
    this.policy = new GatePolicy(
      {
        rules,
        shell,
        ...(options.modeTable ? { modeTable: options.modeTable } : {}),
        ...(options.requiresInteraction ? { requiresInteraction: options.requiresInteraction } : {}),
        ...(options.workspaceRoot ? { workspaceRoot: options.workspaceRoot } : {}),
        ...(options.sandbox ? { sandbox: options.sandbox } : {}),
      },
      mode,
    );
    // agentState reaches the app too: it gets the arguments as the request showed them.
    this.mirror = options.state
      ? new AgentStateMirror(options.state, this.logger, (call) =>
          call.redact === false ? call.args : this.writer.redactValue(call.args),
        )
      : undefined;
    this.modes = new ModeControl({
      policy: this.policy,
      writer: this.writer,
      logger: this.logger,
      metadata: options.state
        ? new ModeMetadata(options.state, this.logger, (pick) => this.handleModePick(pick))
        : undefined,
      ceiling,
      acceptRemoteAnswers: options.acceptRemoteAnswers,
    });
    this.requests = new GateRequests({
      writer: this.writer,
      logger: this.logger,
      policy: this.policy,
      modes: this.modes,
      mirror: this.mirror,
      audit: options.audit,
      validateUpdatedInput: options.validateUpdatedInput,
    });
  }

  /**
   * Builds a gate, installs it on the writer and registers its channels. With `history`, it first
   * closes requests a dead process left pending and rebuilds the session rules (docs/permissions-requirements.md R13).
   * Throws `SdkError` for bad configuration (an invalid rule, mode or ceiling, `onTimeout: 'allow'`).
   */
  static async create(options: PermissionGateOptions): Promise<PermissionGate> {
    const { mode, ceiling, rules } = checkGateOptions(options);
    const shell = options.shell ?? (await loadShellParser());
    const gate = new PermissionGate(options, shell, rules, mode, ceiling);
    gate.start();
    return gate;
  }

  /** The mode the policy decides by now. */
  get mode(): PermissionMode {
    return this.policy.mode;
  }

  /** The most permissive mode a remote input may switch to. */
  get ceiling(): PermissionMode {
    return this.modes.ceiling;
  }

  /** Call ids of the requests waiting for an answer. */
  get pendingCallIds(): readonly string[] {
    return this.requests.pendingCallIds;
  }

  /**
   * Requests as they are made and settled (R9.4, R15): reminders, dashboards, logs. `settled` comes
   * synchronously, except for an answer by RPC: then once its reply is sent (docs/permissions.md,
   * "What follows an answer").
   */
  events$(): Observable<GateEvent> {
    return this.requests.events$();
  }

  /** {@link PermissionGate.events$} as an async iterable, until `signal` aborts. */
  events(options: IterateOptions = {}): AsyncGenerator<GateEvent> {
    return asyncIterableOf(this.events$(), options);
  }

  /** Rules granted in this session by `allow-always` / `reject-always` answers. */
  listRules(): readonly SessionRule[] {
    return this.policy.sessionRules.listRules();
  }

  /** Revokes a session rule and records it in the stream; false when no rule has this id. */
  revokeRule(id: string): boolean {
    const rule = this.policy.sessionRules.listRules().find((r) => r.id === id);
    if (!rule || !this.policy.sessionRules.revokeRule(id)) return false;
    safely(this.logger, 'gate write', () => this.writer.service(`${REVOKE_PREFIX}${rule.id}`));
    return true;
  }

  /**
   * Changes the mode (docs/permissions.md, "Modes"). A `host` change is trusted. A `user` change
   * (the app's pick, a legacy answer) is accepted when it stays within the ceiling or lowers the
   * mode; otherwise it is refused, noted in the stream, and the real mode is written back to the
   * metadata. Returns the typed refusal, if any.
   */
  setMode(input: string, source: ModeSource = 'host'): AnswerResult<'gate'> | undefined {
    return this.requests.afterModeChange(this.modes.set(input, source), source);
  }

  /**
   * The app's mode pick, from a message's `meta.permissionMode` or the session's
   * `metadata.permissionMode` (`connect()` wires both): a mode string is a `user` change
   * ({@link PermissionGate.setMode}); `null` or nothing (the app cleared its pick) writes the real
   * mode back.
   */
  handleModePick(pick: unknown): AnswerResult<'gate'> | undefined {
    return this.requests.afterModeChange(this.modes.handlePick(pick), 'user');
  }

  /**
   * Asks whether `call` may run; see `ToolCall.requestPermission`. Resolves with the decision;
   * rejects only when the `permission-request` could not be stored (its delivery failed), since
   * then nobody can answer it.
   * A second request for a call that is already pending returns the same promise. The request
   * follows the turn's signal and `options.signal`.
   */
  requestPermission(call: GatedCall, options: PermissionRequestOptions = {}): Promise<PermissionDecision> {
    const offered = validateOptions(options.options ?? DEFAULT_PERMISSION_OPTIONS);
    if (!offered.ok) throw offered.error;
    const timeouts = validateTimeoutPolicy({
      timeoutMs: options.timeoutMs ?? this.options.timeoutMs,
      onTimeout: options.onTimeout ?? this.options.onTimeout,
    });
    if (!timeouts.ok) throw timeouts.error;

    const waiting = this.requests.open(call.callId)?.live;
    if (waiting) return waiting.wait.promise;
    // A call that ended, a disposed gate or a stop cancels before anything is carried over.
    if (call.ended) {
      this.requests.dropCarried(call.callId);
      return Promise.resolve(cancelledDecision('cancel', 'The tool call had already ended.'));
    }
    if (this.disposed) {
      this.requests.dropCarried(call.callId);
      return this.requests.decideAtOnce(call, cancelledDecision('shutdown', 'The gate is disposed.'));
    }
    const signals = [call.signal, ...(options.signal ? [options.signal] : [])];
    if (signals.some((s) => s.aborted)) {
      this.requests.dropCarried(call.callId);
      return this.requests.decideAtOnce(call, cancelledDecision('cancel', 'The request was cancelled.'));
    }
    const carried = this.requests.takeCarried(call, (decision) => this.carriedRefusal(call, decision));
    if (carried) return carried;
    const automatic = this.policy.decide(call);
    if (automatic) return this.requests.decideAtOnce(call, automatic, 'policy');

    if (this.options.preview) return this.askPreviewed(call, offered.value, signals, timeouts.value);
    return this.askWith(call, offered.value, signals, timeouts.value, undefined);
  }

  /**
   * Runs the host's previewer first, then asks with the preview on the request; an allow carries
   * the preview for the executor to apply, any other outcome (or edited arguments) discards it. A
   * previewer that fails leaves a note and the request is asked without one (docs/sandbox.md,
   * "Preview before approval").
   */
  private async askPreviewed(
    call: GatedCall,
    offered: readonly PermissionOption[],
    signals: readonly AbortSignal[],
    timeouts: TimeoutPolicy,
  ): Promise<PermissionDecision> {
    let previewed: PreviewedChange | undefined;
    try {
      previewed = await this.options.preview!({
        toolName: call.toolName,
        args: call.args,
        signal: AbortSignal.any([...signals]),
      });
    } catch (error) {
      safely(this.logger, 'gate write', () =>
        call.note(`No preview: ${error instanceof Error ? error.message : String(error)}`),
      );
    }
    if (call.ended || signals.some((s) => s.aborted)) {
      await previewed?.discard();
      return this.requests.decideAtOnce(call, cancelledDecision('cancel', 'The request was cancelled.'));
    }
    const decision = await this.askWith(call, offered, signals, timeouts, previewed);
    if (!previewed) return decision;
    if (decision.outcome !== 'allow' || decision.updatedInput) {
      await previewed.discard();
      return decision;
    }
    return { ...decision, previewed };
  }

  private askWith(
    call: GatedCall,
    offered: readonly PermissionOption[],
    signals: readonly AbortSignal[],
    timeouts: TimeoutPolicy,
    previewed: PreviewedChange | undefined,
  ): Promise<PermissionDecision> {
    const recordId = newId();
    const firstForCall = !this.requestedCalls.has(call.callId);
    this.requestedCalls.add(call.callId);
    let appended: Delivery;
    try {
      // The call appends its own request, from the arguments it froze when it was made.
      appended = call.appendPermissionRequest(offered, recordId, previewed?.preview);
    } catch (error) {
      // Appending failed (the call's scope closed): nothing was asked, so nothing may run.
      this.logger.warn('permission request not appended', { error: String(error) });
      return this.requests.decideAtOnce(
        call,
        cancelledDecision('cancel', 'The request could not be appended.'),
      );
    }
    return this.requests.ask(call, {
      options: offered,
      recordId,
      firstForCall,
      appended,
      signals,
      timeouts,
    });
  }

  /**
   * Answers a pending request from the local program (a terminal prompt, a host UI). The decision
   * is recorded in the stream as the user's `permission-response` with `via: 'local'`.
   */
  answer(input: LocalAnswer): AnswerResult<'gate'> {
    const answer = answerFromLocal(input);
    return 'status' in answer ? answer : this.requests.answer(answer.callId, { by: 'person', answer });
  }

  /**
   * The `permission` RPC handler: v2 `{ callId, optionId, updatedInput? }` or today's legacy body
   * (docs/permissions.md, "What follows an answer"). With `context` (what the registry hands a
   * handler), the adapters hear of the decision once the reply is sent (`afterAnswer`).
   */
  handleRpc(body: unknown, context?: Pick<RpcContext, 'afterAnswer'>): AnswerResult<'gate'> {
    if (!remoteAnswersAccepted(this.options.acceptRemoteAnswers))
      return refuse('permissions.not_allowed', 'Remote answers are not accepted right now.');
    const answer = answerFromRpcBody(body, (id) => this.requests.lookup(id));
    if ('status' in answer) return answer;
    const after = context ? (task: () => void) => context.afterAnswer(task) : runNow;
    return this.requests.answer(answer.callId, { by: 'person', answer }, after);
  }

  /**
   * Reads one record of the stream; user-role `permission-response`s are answers, counted only
   * once their request's record is stored and only if they come after it (`seq`). Resolves with
   * what the answer got (`undefined` for other messages and for the gate's own records).
   */
  async handleStreamInput(input: StreamInput): Promise<AnswerResult<'gate'> | undefined> {
    const message = input?.message;
    if (message?.type !== 'permission-response' || message.role !== 'user') return undefined;
    const item = this.requests.open(message.callId);
    if (!item?.live) return this.requests.lateAnswer(message.callId, message.id);
    const requestSeq = item.live.storedSeq ?? (await item.live.requestSeq);
    if (this.requests.open(message.callId) !== item) {
      // Settled, or asked again, while the request's record was being stored.
      const settled = !this.requests.open(message.callId) && this.requests.isDecided(message.callId);
      return settled ? this.requests.lateAnswer(message.callId, message.id) : undefined;
    }
    if (requestSeq === undefined || !(input.seq > requestSeq)) {
      // Appended before its request (or the request never reached the stream): replay ignores it too.
      return refuse(
        'permissions.unknown_request',
        `The answer to call ${message.callId} was appended before its request.`,
      );
    }
    if (!remoteAnswersAccepted(this.options.acceptRemoteAnswers))
      return refuse('permissions.not_allowed', 'Remote answers are not accepted right now.');
    return this.requests.answer(message.callId, {
      by: 'person',
      answer: answerFromRecord(message),
    });
  }

  /** Cancels every pending request (source `shutdown`), releases channels, timers and listeners. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.requests.endAll(cancelledDecision('shutdown', 'The agent stopped before the request was answered.'));
    for (const end of this.teardown.splice(0)) end();
  }

  /**
   * The requests a dead process left waiting, as this gate took them up when it started on the
   * session's history (docs/recovery.md, "Interrupted calls"): each with the first valid answer
   * a person gave while no agent was there, if any. Their calls are ended.
   */
  get interrupted(): readonly InterruptedRequest[] {
    return this.interruptedRequests;
  }

  /**
   * Lets `call` run once on the allow a person gave to `from` while no agent was there, when it
   * shows exactly `from`'s tool and arguments (`session.resume()` calls it). Returns whether it
   * will; otherwise `call` asks as any call does.
   */
  carryOver(
    call: Pick<GatedCall, 'callId' | 'toolName' | 'args' | 'redact'>,
    from: InterruptedRequest,
  ): boolean {
    return this.requests.carryOver(call, from);
  }

  /**
   * The denial of an allow carried over to a resumed call, when the configuration now in force
   * refuses what would run (the person's edit, or the call's arguments): judged as a line nobody
   * will be asked about again, so a deny rule that cannot be checked on it denies, as for an edit
   * (docs/recovery.md, "Resuming a call").
   */
  private carriedRefusal(call: GatedCall, decision: PermissionDecision): PermissionDecision | undefined {
    const verdict = this.policy.evaluate(call, decision.updatedInput ?? call.args, true);
    const unchecked =
      verdict.reason.kind === 'undecidable' &&
      verdict.reason.rules.some((r) => r.list === 'deny' || r.list === 'session-deny');
    if (verdict.verdict !== 'deny' && !unchecked) return undefined;
    return decisionFromPolicy({ ...verdict, verdict: 'deny' });
  }

  /** Resolves when the agentState mirror and the mode metadata have caught up (tests, orderly shutdown). */
  async settled(): Promise<void> {
    await Promise.all([this.mirror?.settled(), this.modes.settled()]);
  }

  private start(): void {
    const history = this.options.history ?? [];
    for (const m of history) if (m.type === 'permission-request') this.requestedCalls.add(m.callId);
    const trusted = { trusted: (m: Parameters<GateRecords['trusts']>[0]) => this.records.trusts(m) };
    for (const rule of rebuildRules(history, trusted))
      this.policy.sessionRules.add(rule.rule, rule.behavior, {
        grantedBy: rule.grantedBy,
        createdAt: rule.createdAt,
      });
    // Installed first: the notes that take up a dead process's requests are sealed.
    this.writer.install({
      permissions: this,
      onLifecycle: (event) => this.onLifecycle(event),
      seal: (message) => this.records.seal(message),
    });
    this.interruptedRequests = this.takeUp(history, trusted);
    if (history.length > 0) void this.mirror?.cancelAll('Previous agent process exited before responding');
    this.wireAdapters();
    this.modes.publish();
  }

  /**
   * Takes up every request a dead process left open in `history` (docs/recovery.md, "Interrupted
   * calls"): the people's answers stored after that process's last record are held against it,
   * the first valid one decides it, and its call ends; a late answer to it gets
   * `already_resolved`.
   */
  private takeUp(history: readonly SessionMessage[], trusted: LedgerOptions): InterruptedRequest[] {
    const lastAgentRecord = history.findLastIndex((m) => m.role === 'agent');
    const position = new Map(history.map((m, i) => [m.id, i]));
    const acceptRemote = remoteAnswersAccepted(this.options.acceptRemoteAnswers);
    return [...ledgerOf(history, trusted).openRequests()].flatMap((entry) => {
      const request = entry.request;
      if (request.type !== 'permission-request') return [];
      const meanwhile = [...entry.answers.values()].filter(
        (m): m is PermissionResponseMessage =>
          m.type === 'permission-response' && (position.get(m.id) ?? -1) > lastAgentRecord,
      );
      return [this.requests.takeUp(request, entry.first, meanwhile, acceptRemote)];
    });
  }

  /**
   * Connects what the options name: the adapters that follow the gate's events (the agentState
   * mirror, the delayed push, then the rule grants, last since a grant re-decides other
   * requests), the stream to `incoming`, and the RPC to `rpc`.
   */
  private wireAdapters(): void {
    const events$ = this.requests.events$();
    const options = this.options;
    if (this.mirror) {
      const s = this.mirror.follow(events$);
      this.teardown.push(() => s.unsubscribe());
    }
    if (options.push) {
      const push = new PermissionPush(options.push, {
        delayMs: options.pushDelayMs ?? 500,
        sessionTitle: options.sessionTitle,
        logger: this.logger,
      });
      const s = push.follow(events$);
      this.teardown.push(() => s.unsubscribe());
    }
    const grants = grantRules(events$, this.policy.sessionRules, (settled) => {
      if (options.reevaluatePending !== false) this.requests.reevaluate(settled.callId);
    });
    this.teardown.push(() => grants.unsubscribe());
    if (options.incoming) {
      const s = options.incoming.subscribe((input) => {
        this.handleStreamInput(input).catch((error: unknown) =>
          this.logger.error('a stream answer could not be read', { error: String(error) }),
        );
      });
      this.teardown.push(() => s.unsubscribe());
    }
    if (options.rpc)
      this.teardown.push(
        options.rpc.register('permission', (body, context) => this.handleRpc(body, context)),
      );
  }

  private onLifecycle(event: StreamLifecycleEvent): void {
    if (this.disposed) return;
    if (event.kind === 'call-closing') {
      if (this.requests.open(event.callId)?.live)
        this.requests.answer(event.callId, {
          by: 'gate',
          decision: cancelledDecision('cancel', 'The tool call ended.'),
        });
    } else if (event.kind === 'writer-closing') {
      // Taken over (docs/writer-lease.md): each waiter rejects with why, and nothing is recorded.
      if (event.revokedBy)
        this.requests.endAll(
          cancelledDecision('shutdown', 'Another process took the session over.'),
          event.revokedBy,
        );
      this.dispose();
    }
  }
}
