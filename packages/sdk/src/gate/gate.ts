import type { Observable } from 'rxjs';
import { SdkError } from '../errors.js';
import type { IterateOptions } from '../ports/asyncIterable.js';
import type { Logger } from '../logger.js';
import type { RpcContext } from '../ports/rpc.js';
import { silentLogger } from '../logger.js';
import { newId } from '../protocol/ids.js';
import type { GatedCall, GateWriter } from '../stream/gatePorts.js';
import type {
  PermissionDecision,
  PermissionRequestOptions,
  PermissionRuntime,
  PluginHost,
} from '../stream/plugins.js';
import type { Delivery, StreamLifecycleEvent } from '../stream/types.js';
import { AgentStateMirror } from './agentStateMirror.js';
import { Answering, seqOf } from './answering.js';
import type { GateEvent } from './gateEvents.js';
import { PermissionBroker } from './broker.js';
import { cancelledDecision } from './decision.js';
import type { PermissionGateOptions, StreamInput } from './gateOptions.js';
import { checkGateOptions } from './gateOptions.js';
import { GatePolicy } from './gatePolicy.js';
import { GateRecords } from './gateRecords.js';
import { wireGate } from './gateWiring.js';
import type { LocalAnswer } from './localChannel.js';
import { answerLocally } from './localChannel.js';
import type { ModeSource } from './modeControl.js';
import { ModeControl } from './modeControl.js';
import { ModeMetadata } from './modeMetadata.js';
import type { PermissionMode } from '../policy/modes.js';
import { DEFAULT_PERMISSION_OPTIONS, validateOptions } from '../policy/options.js';
import { PendingRequest } from './pendingRequest.js';
import type { CompiledRules } from '../policy/policy.js';
import { recoverFromHistory, REVOKE_PREFIX } from './recovery.js';
import type { RespondResult } from './respondResult.js';
import { answerRpc } from './rpcChannel.js';
import type { SessionRule } from '../policy/sessionRules.js';
import type { ShellParser } from '../policy/shell.js';
import { loadShellParser } from '../policy/shell.js';
import { Settlement } from './settlement.js';
import { StreamChannel } from './streamChannel.js';
import { validateTimeoutPolicy } from './timeouts.js';

export type { PermissionGateOptions, StreamInput } from './gateOptions.js';
export type { ModeSource } from './modeControl.js';

/**
 * Holds every gated tool call until the person on the other end says so (docs/permissions.md).
 * A request is answered by the first valid decision of: local policy (mode and rules), the stream
 * (a user-role `permission-response` after the request), the `permission` RPC, or the local
 * program ({@link PermissionGate.respond}). Every other answer gets a typed {@link RespondResult}.
 * The agent records each answer it applies in the stream, so a replay after a restart reaches the
 * same decisions and rules (docs/permissions.md, "One arbitration"). Nothing here throws into the
 * host for bad input, and no error path allows a call.
 *
 * Its parts (broker, settlement, answering, one module per channel, mode control, adapters):
 * docs/permissions.md, "How the gate is built".
 */
export class PermissionGate implements PermissionRuntime {
  private readonly writer: GateWriter & PluginHost;
  private readonly logger: Logger;
  private readonly policy: GatePolicy;
  private readonly broker = new PermissionBroker();
  /** Ends the adapters and channels {@link wireGate} set up. */
  private readonly teardown: Array<() => void> = [];
  private readonly mirror: AgentStateMirror | undefined;
  private readonly modes: ModeControl;
  private readonly answering: Answering;
  private readonly settlement: Settlement;
  private readonly stream: StreamChannel;
  private readonly records: GateRecords;
  /** Calls that had a request, in the history or here: a later request of one needs answers that name it. */
  private readonly requestedCalls = new Set<string>();
  private disposed = false;

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
    const safely = (write: () => unknown): void => this.safely(write);
    const remoteAllowed = (): boolean => this.remoteAllowed();
    this.settlement = new Settlement({
      broker: this.broker,
      policy: this.policy,
      logger: this.logger,
      safely,
    });
    this.modes = new ModeControl({
      policy: this.policy,
      writer: this.writer,
      logger: this.logger,
      metadata: options.state
        ? new ModeMetadata(options.state, this.logger, (pick) => this.handleModePick(pick))
        : undefined,
      ceiling,
      remoteAllowed,
      reevaluate: () => this.settlement.reevaluate(undefined),
      safely,
    });
    this.answering = new Answering({
      gate: this.settlement,
      policy: this.policy,
      modes: this.modes,
      writer: this.writer,
      logger: this.logger,
      validateUpdatedInput: options.validateUpdatedInput,
      safely,
    });
    this.stream = new StreamChannel({
      broker: this.broker,
      answering: this.answering,
      gate: this.settlement,
      remoteAllowed,
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

  /** The current mode. */
  get mode(): PermissionMode {
    return this.policy.mode;
  }

  /** The most permissive mode a remote input may switch to. */
  get ceiling(): PermissionMode {
    return this.modes.ceiling;
  }

  /** Call ids of the requests waiting for an answer. */
  get pendingCallIds(): readonly string[] {
    return this.broker.pendingCallIds;
  }

  /**
   * Requests as they are made and settled (R9.4, R15): reminders, dashboards, logs. `settled` comes
   * synchronously, except for an answer by RPC: then once its answer is sent, after its waiter was
   * released (docs/permissions.md, "What follows an answer").
   */
  get events$(): Observable<GateEvent> {
    return this.broker.events$;
  }

  /** {@link PermissionGate.events$} as an async iterable, until `signal` aborts. */
  events(options: IterateOptions = {}): AsyncGenerator<GateEvent> {
    return this.broker.events(options);
  }

  /** Rules granted in this session by `allow-always` / `reject-always` answers. */
  listRules(): readonly SessionRule[] {
    return this.policy.sessionRules.listRules();
  }

  /** Revokes a session rule and records it in the stream; false when no rule has this id. */
  revokeRule(id: string): boolean {
    const rule = this.policy.sessionRules.listRules().find((r) => r.id === id);
    if (!rule || !this.policy.sessionRules.revokeRule(id)) return false;
    this.safely(() => this.writer.service(`${REVOKE_PREFIX}${rule.id}`));
    return true;
  }

  /**
   * Changes the mode (docs/permissions.md, "Modes"). A `host` change is trusted. A `user` change
   * (the app's pick, a legacy answer) is accepted when it stays within the ceiling or lowers the
   * mode; otherwise it is refused, noted in the stream, and the real mode is written back to the
   * metadata. Returns the typed refusal, if any.
   */
  setMode(input: string, source: ModeSource = 'host'): RespondResult | undefined {
    return this.modes.set(input, source);
  }

  /**
   * The app's mode pick, from a message's `meta.permissionMode` or the session's
   * `metadata.permissionMode` (`connect()` wires both): a mode string is a `user` change
   * ({@link PermissionGate.setMode}); `null` or nothing (the app cleared its pick) writes the real
   * mode back.
   */
  handleModePick(pick: unknown): RespondResult | undefined {
    return this.modes.handlePick(pick);
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

    const existing = this.broker.lookup(call.callId);
    if (existing instanceof PendingRequest) return existing.promise;
    if (call.ended) {
      return Promise.resolve(cancelledDecision('cancel', 'The tool call had already ended.'));
    }
    if (this.disposed)
      return Promise.resolve(
        this.settlement.close(call, cancelledDecision('shutdown', 'The gate is disposed.')),
      );
    const signals = [call.signal, ...(options.signal ? [options.signal] : [])];
    if (signals.some((s) => s.aborted)) {
      return Promise.resolve(
        this.settlement.close(call, cancelledDecision('cancel', 'The request was cancelled.')),
      );
    }

    const automatic = this.decideByPolicy(call);
    if (automatic) return Promise.resolve(automatic);

    const recordId = newId();
    const firstForCall = !this.requestedCalls.has(call.callId);
    this.requestedCalls.add(call.callId);
    let appended: Delivery;
    try {
      // The call appends its own request, from the arguments it froze when it was made.
      appended = call.appendPermissionRequest(offered.value, recordId);
    } catch (error) {
      // Appending failed (the call's scope closed): nothing was asked, so nothing may run.
      this.logger.warn('permission request not appended', { error: String(error) });
      return Promise.resolve(
        this.settlement.close(call, cancelledDecision('cancel', 'The request could not be appended.')),
      );
    }
    const entry = new PendingRequest(
      call,
      offered.value,
      Date.now(),
      seqOf(appended),
      recordId,
      firstForCall,
    );
    this.broker.open(entry);
    this.settlement.follow(entry, appended, signals, timeouts.value);
    return entry.promise;
  }

  /**
   * Answers a pending request from the local program (a terminal prompt, a host UI). The decision
   * is recorded in the stream as the user's `permission-response` with `via: 'local'`.
   */
  respond(input: LocalAnswer): RespondResult {
    return answerLocally(this.answering, input);
  }

  /**
   * The `permission` RPC handler: v2 `{ callId, optionId, updatedInput? }` or today's legacy body
   * (docs/permissions.md, "What follows an answer").
   */
  handleRpc(body: unknown, context?: Pick<RpcContext, 'afterAnswer'>): RespondResult {
    return answerRpc(
      { answering: this.answering, gate: this.settlement, remoteAllowed: () => this.remoteAllowed() },
      body,
      context,
    );
  }

  /**
   * Reads one record of the stream; user-role `permission-response`s are answers. Resolves with
   * what the answer got (`undefined` for other messages).
   */
  handleStreamInput(input: StreamInput): Promise<RespondResult | undefined> {
    return this.stream.read(input);
  }

  /** Cancels every pending request (source `shutdown`), releases channels, timers and listeners. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const entry of this.broker.pendingRequests()) {
      this.settlement.settle(
        entry,
        cancelledDecision('shutdown', 'The agent stopped before the request was answered.'),
      );
    }
    this.broker.complete();
    for (const end of this.teardown.splice(0)) end();
  }

  /** Resolves when the agentState mirror and the mode metadata have caught up (tests, orderly shutdown). */
  async settled(): Promise<void> {
    await Promise.all([this.mirror?.settled(), this.modes.settled()]);
  }

  /** Decides without asking when the policy can; returns undefined when the user must be asked. */
  private decideByPolicy(call: GatedCall): PermissionDecision | undefined {
    const decision = this.policy.decide(call);
    if (!decision) return undefined;
    const { callId, toolName, args } = call;
    this.broker.remember(callId, { toolName, args, options: [], decision, recordId: undefined });
    if (this.options.audit === 'full') this.safely(() => call.note(decision.message ?? decision.outcome));
    if (decision.outcome !== 'allow') {
      // Today's app shows the call as denied only with an agentState entry (docs/wire.md §6.6).
      void this.mirror?.completed(callId, decision, {}, { toolName, args, createdAt: Date.now() });
      call.end({ error: decision.message ?? 'Denied by policy.' });
    }
    return decision;
  }

  private start(): void {
    const history = this.options.history ?? [];
    for (const m of history) if (m.type === 'permission-request') this.requestedCalls.add(m.callId);
    recoverFromHistory(history, {
      rules: this.policy.sessionRules,
      broker: this.broker,
      writer: this.writer,
      trusted: (m) => this.records.trusts(m),
    });
    if (history.length > 0) void this.mirror?.cancelAll('Previous agent process exited before responding');
    this.teardown.push(
      ...wireGate(this.options, {
        broker: this.broker,
        rules: this.policy.sessionRules,
        mirror: this.mirror,
        logger: this.logger,
        reevaluate: (callId) => this.settlement.reevaluate(callId),
        readStream: (input) => this.handleStreamInput(input),
        answerRpc: (body, context) => this.handleRpc(body, context),
      }),
    );
    this.writer.install({
      permissions: this,
      onLifecycle: (event) => this.onLifecycle(event),
      seal: (message) => this.records.seal(message),
    });
    this.modes.publish();
  }

  private onLifecycle(event: StreamLifecycleEvent): void {
    if (this.disposed) return;
    if (event.kind === 'call-closing') {
      const entry = this.broker.lookup(event.callId);
      if (entry instanceof PendingRequest)
        this.settlement.settle(entry, cancelledDecision('cancel', 'The tool call ended.'));
    } else if (event.kind === 'writer-closing') {
      this.dispose();
    }
  }

  private remoteAllowed(): boolean {
    try {
      return this.options.acceptRemoteAnswers?.() ?? true;
    } catch {
      return false;
    }
  }

  /** Runs a stream write whose failure must not break the gate (the call or turn may be closed). */
  private safely(fn: () => unknown): void {
    try {
      fn();
    } catch (error) {
      if (!(error instanceof SdkError)) throw error;
      this.logger.debug('gate write skipped', { code: error.code });
    }
  }
}
