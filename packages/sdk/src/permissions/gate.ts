import type { Observable, Subscription } from 'rxjs';
import { SdkError } from '../errors.js';
import type { IterateOptions } from '../ports/asyncIterable.js';
import type { Logger } from '../logger.js';
import type { RpcContext } from '../ports/rpc.js';
import { silentLogger } from '../logger.js';
import type { PermissionOption, PermissionResponseMessage } from '../protocol/sessionMessage.js';
import { PERMISSION_SETTLED_PREFIX } from '../stream/permissionLedger.js';
import type { PermissionDecision, PermissionRequestOptions, PermissionRuntime } from '../stream/plugins.js';
import type { SessionWriter } from '../stream/sessionWriter.js';
import type { ToolCall } from '../stream/toolCall.js';
import type { Delivery, StreamLifecycleEvent } from '../stream/types.js';
import { AgentStateMirror } from './agentStateMirror.js';
import type { Answer } from './answers.js';
import { answerFromRpcBody } from './answers.js';
import type { AppliedAnswer, BrokerEvent, SettledRequest } from './broker.js';
import { PermissionBroker } from './broker.js';
import { cancelledDecision, decisionFromOption } from './decision.js';
import type { PermissionGateOptions, StreamInput } from './gateOptions.js';
import { GatePolicy } from './gatePolicy.js';
import { DEFAULT_CEILING, remoteModeChangeAllowed } from './modeCeiling.js';
import { ModeMetadata } from './modeMetadata.js';
import type { PermissionMode } from './modes.js';
import { parseMode, PERMISSION_MODES } from './modes.js';
import { DEFAULT_PERMISSION_OPTIONS, validateOptions } from './options.js';
import { PendingRequest } from './pendingRequest.js';
import { PermissionPush } from './permissionPush.js';
import type { CompiledRules } from './policy.js';
import { compileRules, describePolicyResult } from './policy.js';
import { closeOrphans, REVOKE_PREFIX, rebuildRules } from './recovery.js';
import type { RespondResult } from './respondResult.js';
import { refuse } from './respondResult.js';
import { grantRules } from './ruleGrants.js';
import type { SessionRule } from './sessionRules.js';
import type { ShellParser } from './shell.js';
import { loadShellParser } from './shell.js';
import { TIMEOUT_MESSAGE, validateTimeoutPolicy } from './timeouts.js';

export type { PermissionGateOptions, StreamInput } from './gateOptions.js';

/**
 * Where a mode change comes from: the host's own code (trusted), or the user (the app's pick, a
 * legacy answer's `mode`), which is held to the ceiling unless it lowers the mode.
 */
export type ModeSource = 'host' | 'user';

const CANCELLED = 'cancelled';
const NOT_RECORDED = 'The decision could not be recorded in the stream.';

/** A decision taken for a pending request, to complete once it is recorded ({@link PermissionGate}). */
interface GateDecision {
  /**
   * Releases the waiter and the adapters and ends the call unless allowed; `decision` replaces the
   * decision taken (failing closed), `closedBy` is the `seq` of the record that closes the request.
   */
  complete(outcome?: {
    answer?: AppliedAnswer;
    decision?: PermissionDecision;
    closedBy?: Promise<number | undefined>;
  }): void;
}

function runNow(task: () => void): void {
  task();
}

/**
 * Holds every gated tool call until the person on the other end says so (docs/permissions.md).
 * A request is answered by the first valid decision of: local policy (mode and rules), the stream
 * (a user-role `permission-response` after the request), the `permission` RPC, or the local
 * program ({@link PermissionGate.respond}). Every other answer gets a typed {@link RespondResult}.
 * The agent records each answer it applies in the stream, so a replay after a restart reaches the
 * same decisions and rules (docs/permissions.md, "One arbitration"). Nothing here throws into the
 * host for bad input, and no error path allows a call.
 *
 * Made of a `PermissionBroker` (pending requests, first answer wins) and adapters around
 * it: the channels (stream, RPC, local), the agentState mirror, the delayed push, the rule grants,
 * and the mode written to the session's metadata.
 */
export class PermissionGate implements PermissionRuntime {
  private readonly writer: SessionWriter;
  private readonly logger: Logger;
  private readonly policy: GatePolicy;
  private readonly broker = new PermissionBroker();
  private readonly subscriptions: Subscription[] = [];
  private readonly unregister: Array<() => void> = [];
  private readonly mirror: AgentStateMirror | undefined;
  private readonly modeMetadata: ModeMetadata | undefined;
  private readonly ceilingMode: PermissionMode;
  private lastRefusedPick: string | undefined;
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
    this.ceilingMode = ceiling;
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
    this.modeMetadata = options.state
      ? new ModeMetadata(options.state, this.logger, (pick) => this.handleModePick(pick))
      : undefined;
  }

  /**
   * Builds a gate, installs it on the writer and registers its channels. With `history`, it first
   * closes requests a dead process left pending and rebuilds the session rules (docs/permissions-requirements.md R13).
   * Throws `SdkError` for bad configuration (an invalid rule, mode or ceiling, `onTimeout: 'allow'`).
   */
  static async create(options: PermissionGateOptions): Promise<PermissionGate> {
    const mode = parseMode(options.mode ?? 'default');
    if (!mode.ok) throw mode.error;
    const ceiling = parseMode(options.ceiling ?? DEFAULT_CEILING);
    if (!ceiling.ok) throw ceiling.error;
    const rules = compileRules({
      ...options.rules,
      allow: ['change_title', ...(options.rules?.allow ?? [])],
    });
    if (!rules.ok) throw rules.error;
    const timeouts = validateTimeoutPolicy({ timeoutMs: options.timeoutMs, onTimeout: options.onTimeout });
    if (!timeouts.ok) throw timeouts.error;
    const shell = options.shell ?? (await loadShellParser());
    const gate = new PermissionGate(options, shell, rules.value, mode.value, ceiling.value);
    gate.start();
    return gate;
  }

  /** The current mode. */
  get mode(): PermissionMode {
    return this.policy.mode;
  }

  /** The most permissive mode a remote input may switch to. */
  get ceiling(): PermissionMode {
    return this.ceilingMode;
  }

  /** Call ids of the requests waiting for an answer. */
  get pendingCallIds(): readonly string[] {
    return this.broker.pendingCallIds;
  }

  /**
   * Requests as they are made and settled, synchronously (docs/permissions-requirements.md R9.4,
   * R15): for reminders, dashboards, logs.
   */
  get events$(): Observable<BrokerEvent> {
    return this.broker.events$;
  }

  /**
   * {@link PermissionGate.events$} as an async iterable, until `signal` aborts:
   * `for await (const event of gate.events({ signal })) { … }`.
   */
  events(options: IterateOptions = {}): AsyncGenerator<BrokerEvent> {
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
   * metadata. Every change is recorded in the stream and written to the metadata; a `user` change
   * re-decides pending requests. Returns the typed refusal, if any.
   */
  setMode(input: string, source: ModeSource = 'host'): RespondResult | undefined {
    const current = this.policy.mode;
    const parsed = parseMode(input);
    if (!parsed.ok) return this.refusePick(input, source, 'it is not a permission mode');
    const mode = parsed.value;
    if (source === 'user' && !this.remoteChangeAllowed(mode)) {
      const why = !this.remoteAllowed()
        ? 'remote changes are not accepted right now'
        : `it is above the ceiling ${this.ceilingMode}`;
      return this.refusePick(input, source, why);
    }
    if (mode === current) {
      this.publishModeIfStale();
      return undefined;
    }
    this.policy.mode = mode;
    this.lastRefusedPick = undefined;
    this.safely(() => this.writer.service(`Permission mode changed to ${mode} (by ${source}).`));
    this.publishMode();
    if (source === 'user') this.reevaluate(undefined);
    return undefined;
  }

  /**
   * The app's mode pick, from a message's `meta.permissionMode` or the session's
   * `metadata.permissionMode` (`connect()` wires both): a mode string is a `user` change
   * ({@link PermissionGate.setMode}); `null` or nothing (the app cleared its pick) writes the real
   * mode back.
   */
  handleModePick(pick: unknown): RespondResult | undefined {
    if (pick === undefined || pick === null) {
      this.publishModeIfStale();
      return undefined;
    }
    if (typeof pick !== 'string') return this.refusePick(String(pick), 'user', 'it is not a permission mode');
    return this.setMode(pick, 'user');
  }

  /**
   * Asks whether `call` may run; see {@link ToolCall.requestPermission}. Resolves with the decision;
   * rejects only when the `permission-request` could not be stored (its delivery failed), since
   * then nobody can answer it.
   * A second request for a call that is already pending returns the same promise. The request
   * follows the turn's signal and `options.signal`.
   */
  requestPermission(call: ToolCall, options: PermissionRequestOptions = {}): Promise<PermissionDecision> {
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
      return Promise.resolve(this.close(call, cancelledDecision('shutdown', 'The gate is disposed.')));
    const signals = [call.signal, ...(options.signal ? [options.signal] : [])];
    if (signals.some((s) => s.aborted)) {
      return Promise.resolve(this.close(call, cancelledDecision('cancel', 'The request was cancelled.')));
    }

    const automatic = this.decideByPolicy(call);
    if (automatic) return Promise.resolve(automatic);

    let appended: Delivery;
    try {
      // The writer redacts the request (unless the call opted out); the executor keeps call.args.
      appended = call.parent.emitContent(
        {
          type: 'permission-request',
          callId: call.callId,
          toolName: call.toolName,
          title: call.title,
          ...(call.description ? { description: call.description } : {}),
          args: { ...call.args },
          options: offered.value.map((o) => ({ ...o })),
        },
        call.emitOptions,
      );
    } catch (error) {
      // Appending failed (the call's scope closed): nothing was asked, so nothing may run.
      this.logger.warn('permission request not appended', { error: String(error) });
      return Promise.resolve(
        this.close(call, cancelledDecision('cancel', 'The request could not be appended.')),
      );
    }
    const entry = new PendingRequest(call, offered.value, Date.now(), seqOf(appended));
    this.broker.open(entry);
    // A request that is never stored cannot be answered: fail the wait rather than hold it forever.
    appended.catch((error: unknown) => this.fail(entry, error));
    for (const signal of signals) {
      entry.watch(signal, () =>
        this.settle(entry, cancelledDecision('cancel', 'The request was cancelled.')),
      );
    }
    const policy = timeouts.value;
    if (policy.timeoutMs !== undefined) {
      entry.startTimer(policy.timeoutMs, () =>
        this.settle(
          entry,
          policy.onTimeout === 'deny'
            ? { outcome: 'deny', source: 'timeout', message: TIMEOUT_MESSAGE }
            : { outcome: 'cancelled', source: 'timeout', message: TIMEOUT_MESSAGE },
        ),
      );
    }
    return entry.promise;
  }

  /**
   * Answers a pending request from the local program (a terminal prompt, a host UI). The decision
   * is recorded in the stream as the user's `permission-response` with `via: 'local'`.
   */
  respond(input: {
    callId: string;
    optionId: string;
    updatedInput?: Record<string, unknown>;
  }): RespondResult {
    if (typeof input !== 'object' || input === null)
      return refuse('invalid_payload', 'The answer must be an object.');
    return this.apply({ ...input, via: 'local' });
  }

  /**
   * The `permission` RPC handler: v2 `{ callId, optionId, updatedInput? }` or today's legacy body.
   * Returns as soon as the decision is taken. With `context` (what the registry hands a handler),
   * the decision is recorded and carried out once the answer is sent (`afterAnswer`); without it,
   * before this returns. Either way the tool starts only after its record is appended
   * (docs/permissions.md, "What follows an answer").
   */
  handleRpc(body: unknown, context?: Pick<RpcContext, 'afterAnswer'>): RespondResult {
    if (!this.remoteAllowed()) return refuse('not_allowed', 'Remote answers are not accepted right now.');
    const answer = answerFromRpcBody(body, (callId) => this.pendingOrResult(callId));
    if ('status' in answer) return answer;
    return this.apply(answer, context ? (task) => context.afterAnswer(task) : runNow);
  }

  /**
   * Reads one record of the stream; user-role `permission-response`s are answers. An answer counts
   * only once its request's record is stored and only if it comes after it (`seq`); the agent's
   * own records are skipped. Resolves with what the answer got (`undefined` for other messages).
   */
  async handleStreamInput(input: StreamInput): Promise<RespondResult | undefined> {
    const message = input?.message;
    if (message?.type !== 'permission-response' || message.role !== 'user') return undefined;
    const found = this.broker.lookup(message.callId);
    if (!found) return refuse('unknown_request', `No permission request for call ${message.callId}.`);
    if (!(found instanceof PendingRequest)) return this.lateAnswer(found, message, input.seq);
    const requestSeq = found.storedSeq ?? (await found.requestSeq);
    if (this.broker.lookup(message.callId) !== found) {
      const now = this.broker.lookup(message.callId);
      return now && !(now instanceof PendingRequest) ? this.lateAnswer(now, message, input.seq) : undefined;
    }
    if (requestSeq === undefined || !(input.seq > requestSeq)) {
      // Appended before its request (or the request never reached the stream): replay ignores it too.
      return refuse(
        'unknown_request',
        `The answer to call ${message.callId} was appended before its request.`,
      );
    }
    if (message.via !== undefined) return this.applyRecord(found, message, input.seq);
    if (!this.remoteAllowed()) return refuse('not_allowed', 'Remote answers are not accepted right now.');
    return this.apply({
      callId: message.callId,
      optionId: message.optionId,
      via: 'stream',
      ...(message.updatedInput !== undefined ? { updatedInput: message.updatedInput } : {}),
    });
  }

  /**
   * A record another client wrote that claims to be the agent's (`via`), while its request waits.
   * Replay takes the first such record as the decision, so it is the decision live too: applied as
   * it stands when valid (whether or not remote answers are accepted right now), and when its
   * edited arguments fail the checks, the request is denied (the tool does not run; an answer
   * with edits grants no rule, live or on replay).
   */
  private applyRecord(entry: PendingRequest, message: PermissionResponseMessage, seq: number): RespondResult {
    const result = this.apply({
      callId: message.callId,
      optionId: message.optionId,
      via: 'stream',
      ...(message.updatedInput !== undefined ? { updatedInput: message.updatedInput } : {}),
      record: { id: message.id, time: message.time, seq },
    });
    if (result.status === 'error' && result.code === 'invalid_updated_input') {
      this.settle(
        entry,
        {
          outcome: 'deny',
          source: 'user',
          via: 'stream',
          message: 'An answer recorded in the stream edits the arguments in a way the agent refuses.',
        },
        Promise.resolve(seq),
      );
    }
    return result;
  }

  /** Cancels every pending request (source `shutdown`), releases channels, timers and listeners. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const entry of this.broker.pendingRequests()) {
      this.settle(entry, cancelledDecision('shutdown', 'The agent stopped before the request was answered.'));
    }
    for (const u of this.unregister) u();
    this.unregister.length = 0;
    this.broker.complete();
    for (const s of this.subscriptions) s.unsubscribe();
    this.subscriptions.length = 0;
  }

  /** Resolves when the agentState mirror and the mode metadata have caught up (tests, orderly shutdown). */
  async settled(): Promise<void> {
    await Promise.all([this.mirror?.settled(), this.modeMetadata?.settled()]);
  }

  private start(): void {
    const history = this.options.history ?? [];
    for (const rule of rebuildRules(history)) {
      this.policy.sessionRules.add(rule.rule, rule.behavior, {
        grantedBy: rule.grantedBy,
        createdAt: rule.createdAt,
      });
    }
    for (const orphan of closeOrphans(history, this.writer)) {
      this.broker.remember(orphan.request.callId, {
        toolName: orphan.request.toolName,
        args: orphan.request.args ?? {},
        options: orphan.request.options,
        decision: orphan.decision,
        recordId: undefined,
      });
    }
    if (history.length > 0) void this.mirror?.cancelAll('Previous agent process exited before responding');
    // The adapters around the broker; the rule grants come last, as a grant re-decides other requests.
    if (this.mirror) this.subscriptions.push(this.mirror.follow(this.broker.events$));
    if (this.options.push) {
      const push = new PermissionPush(this.options.push, {
        delayMs: this.options.pushDelayMs ?? 500,
        sessionTitle: this.options.sessionTitle,
        logger: this.logger,
      });
      this.subscriptions.push(push.follow(this.broker.events$));
    }
    this.subscriptions.push(
      grantRules(this.broker.events$, this.policy.sessionRules, (settled) => {
        if (this.options.reevaluatePending !== false) this.reevaluate(settled.callId);
      }),
    );
    this.writer.install({ permissions: this, onLifecycle: (event) => this.onLifecycle(event) });
    if (this.options.incoming) {
      this.subscriptions.push(
        this.options.incoming.subscribe((input) => {
          this.handleStreamInput(input).catch((error: unknown) =>
            this.logger.error('a stream answer could not be read', { error: String(error) }),
          );
        }),
      );
    }
    if (this.options.rpc)
      this.unregister.push(
        this.options.rpc.register('permission', (body, context) => this.handleRpc(body, context)),
      );
    this.publishMode();
  }

  private onLifecycle(event: StreamLifecycleEvent): void {
    if (this.disposed) return;
    if (event.kind === 'call-closing') {
      const entry = this.broker.lookup(event.callId);
      if (entry instanceof PendingRequest)
        this.settle(entry, cancelledDecision('cancel', 'The tool call ended.'));
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

  /** A remote mode change goes through when it stays within the ceiling, or when it lowers the mode. */
  private remoteChangeAllowed(mode: PermissionMode): boolean {
    return remoteModeChangeAllowed(mode, this.policy.mode, this.remoteAllowed() ? this.ceilingMode : 'plan');
  }

  /** Refuses a user's mode change: notes it in the stream (once per pick) and writes the real mode back. */
  private refusePick(pick: string, source: ModeSource, why: string): RespondResult {
    const shown = JSON.stringify(pick.slice(0, 64));
    if (source === 'user') {
      if (this.lastRefusedPick !== pick) {
        this.lastRefusedPick = pick;
        this.safely(() =>
          this.writer.service(
            `Permission mode ${shown} refused: ${why}; the mode stays ${this.policy.mode}.`,
          ),
        );
      }
      this.publishMode();
    }
    return refuse('mode_not_allowed', `Mode ${shown} refused: ${why}.`);
  }

  /** Writes the real mode and the menu of modes a pick may choose to the metadata, for today's app. */
  private publishMode(): void {
    if (!this.modeMetadata) return;
    const mode = this.policy.mode;
    const menu = PERMISSION_MODES.filter(
      (m) => m === mode || remoteModeChangeAllowed(m, mode, this.ceilingMode),
    );
    void this.modeMetadata.publish(mode, menu);
  }

  private publishModeIfStale(): void {
    if (this.modeMetadata && this.modeMetadata.shown !== this.policy.mode) this.publishMode();
  }

  /** The pending request of a call, or the typed result for a settled or unknown one. */
  private pendingOrResult(callId: string): PendingRequest | RespondResult {
    const found = this.broker.lookup(callId);
    if (found instanceof PendingRequest) return found;
    if (found) return { status: 'already_resolved', callId, decision: found.decision, resolvedAt: found.at };
    return refuse('unknown_request', `No permission request for call ${callId}.`);
  }

  /**
   * Validates and applies one answer; the first valid one takes the decision at once (later
   * answers get `already_resolved`). Recording it and what follows from it run through `after`:
   * the RPC channel hands them to its registry, which runs them once the answer is sent; the other
   * channels run them at once.
   */
  private apply(answer: Answer, after: (task: () => void) => void = runNow): RespondResult {
    try {
      const found = this.pendingOrResult(answer.callId);
      if ('status' in found) return found;
      const option = found.options.find((o) => o.id === answer.optionId);
      if (!option)
        return refuse(
          'invalid_option',
          `Option ${answer.optionId} is not offered for call ${answer.callId}.`,
        );
      if (answer.kind !== undefined && answer.kind !== option.kind) {
        return refuse(
          'invalid_option',
          `Option ${option.id} is a ${option.kind} option, not ${answer.kind}.`,
        );
      }
      const updated = this.checkUpdatedInput(found, answer);
      if (updated && 'status' in updated) return updated;
      if (answer.mode !== undefined && !this.remoteChangeAllowed(answer.mode)) {
        return refuse('mode_not_allowed', `Mode ${answer.mode} is above the ceiling ${this.ceilingMode}.`);
      }
      const decision: PermissionDecision = {
        ...decisionFromOption(
          option,
          answer.via,
          answer.message ?? (option.kind.startsWith('reject') ? 'Denied by the user.' : undefined),
        ),
        ...(updated ? { updatedInput: updated.value } : {}),
        ...(answer.interrupt ? { interrupt: true } : {}),
      };
      const decided = this.decide(
        found,
        decision,
        answer.record ? Promise.resolve(answer.record.seq) : undefined,
      );
      if (!decided) {
        const now = this.pendingOrResult(answer.callId);
        return 'status' in now ? now : refuse('invalid_payload', 'The answer could not be applied.');
      }
      after(() => this.carryOut(found, decided, answer, option, updated?.value));
      return { status: 'applied', callId: answer.callId, decision };
    } catch (error) {
      // Fail closed: an internal error never approves anything.
      this.logger.error('permission answer failed', { error: String(error) });
      return refuse('invalid_payload', 'The answer could not be applied.');
    }
  }

  /**
   * Carries out the decision an answer took: appends the agent's record of it (unless the answer
   * is such a record already), then releases the waiter and the adapters, then applies the
   * answer's mode switch and interrupt. The record precedes whatever the tool writes once it runs.
   * When the record cannot be appended, the request is cancelled instead: no tool runs on a
   * decision the stream does not hold.
   */
  private carryOut(
    entry: PendingRequest,
    decided: GateDecision,
    answer: Answer,
    option: PermissionOption,
    updatedInput: Readonly<Record<string, unknown>> | undefined,
  ): void {
    try {
      const record = answer.record
        ? { message: { id: answer.record.id, time: answer.record.time }, seq: undefined }
        : this.recordResponse(entry, option, answer.via, updatedInput);
      if (!record) {
        decided.complete({ decision: cancelledDecision('cancel', NOT_RECORDED) });
        return;
      }
      decided.complete({
        answer: { option, record: record.message, ...(updatedInput ? { updatedInput } : {}) },
        ...(record.seq ? { closedBy: record.seq } : {}),
      });
    } catch (error) {
      this.logger.error('permission decision could not be carried out', { error: String(error) });
      decided.complete({ decision: cancelledDecision('cancel', NOT_RECORDED) });
      return;
    }
    if (answer.mode !== undefined) this.setMode(answer.mode, 'user');
    if (answer.interrupt) this.interruptTurn(entry.call);
  }

  /**
   * The user's edited arguments, merged over the request's: refused unless they are an object that
   * passes the deny rules (the policy must not deny the call as edited, nor find a deny rule it
   * cannot check) and the host's validation.
   */
  private checkUpdatedInput(
    entry: PendingRequest,
    answer: Answer,
  ): { value: Readonly<Record<string, unknown>> } | RespondResult | undefined {
    if (answer.updatedInput === undefined) return undefined;
    const input = answer.updatedInput;
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      return refuse('invalid_updated_input', 'updatedInput must be an object.');
    }
    const merged = { ...entry.call.args, ...this.unredacted(entry.call, input) };
    const verdict = this.policy.evaluate(entry.call, merged);
    const unchecked =
      verdict.reason.kind === 'undecidable' &&
      verdict.reason.rules.some((r) => r.list === 'deny' || r.list === 'session-deny');
    if (verdict.verdict === 'deny' || unchecked) {
      return refuse('invalid_updated_input', `The edited input is refused: ${describePolicyResult(verdict)}`);
    }
    const check = this.options.validateUpdatedInput;
    if (check && !check(entry.call.toolName, merged)) {
      return refuse('invalid_updated_input', `The edited input is not valid for ${entry.call.toolName}.`);
    }
    return { value: merged };
  }

  /**
   * The user's edited arguments with every value they left as the request showed it (redacted)
   * put back to the real one: an edit of one field must not hand the tool a marker for another.
   */
  private unredacted(call: ToolCall, input: Record<string, unknown>): Record<string, unknown> {
    if (call.redact === false) return input;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(input)) {
      const real = call.args[key];
      const shown = JSON.stringify(this.writer.redactValue(real));
      const wasRedacted = real !== undefined && shown !== JSON.stringify(real);
      out[key] = wasRedacted && JSON.stringify(value) === shown ? real : value;
    }
    return out;
  }

  /**
   * Appends the agent's record of the answer it applies: the user's `permission-response` with
   * `via` (and the arguments that run, when edited). Replay reads these records.
   */
  private recordResponse(
    entry: PendingRequest,
    option: PermissionOption,
    via: Answer['via'],
    updatedInput: Readonly<Record<string, unknown>> | undefined,
  ): { message: { id: string; time: number }; seq: Promise<number | undefined> } | undefined {
    let recorded: { message: { id: string; time: number }; seq: Promise<number | undefined> } | undefined;
    this.safely(() => {
      const { message, delivery } = this.writer.appendMessage({
        role: 'user',
        type: 'permission-response',
        callId: entry.call.callId,
        optionId: option.id,
        via,
        ...(updatedInput !== undefined ? { updatedInput: { ...updatedInput } } : {}),
      });
      recorded = { message: { id: message.id, time: message.time }, seq: seqOf(delivery) };
    });
    return recorded;
  }

  /**
   * A user answer for a request already settled. Its typed result is `already_resolved`. If it is a
   * record that claims `via` (another client's) and the stream stored it before the agent's own
   * closing record, replay will take it as the decision: the gate follows the stream's rules.
   */
  private lateAnswer(
    settled: SettledRequest,
    message: PermissionResponseMessage,
    seq: number,
  ): RespondResult | undefined {
    if (settled.recordId === message.id) return undefined;
    if (message.via !== undefined) {
      void this.followRacingRecord(settled, message, seq).catch((error: unknown) =>
        this.logger.error('a racing permission record could not be followed', { error: String(error) }),
      );
    }
    return {
      status: 'already_resolved',
      callId: settled.callId,
      decision: settled.decision,
      resolvedAt: settled.at,
    };
  }

  private async followRacingRecord(
    settled: SettledRequest,
    message: PermissionResponseMessage,
    seq: number,
  ): Promise<void> {
    const [requestSeq, closingSeq] = await Promise.all([settled.requestSeq, settled.closingSeq]);
    if (settled.converged || requestSeq === undefined || closingSeq === undefined) return;
    if (!(seq > requestSeq && seq < closingSeq)) return;
    const option = settled.options.find((o) => o.id === message.optionId);
    if (!option) return;
    settled.converged = true;
    const store = this.policy.sessionRules;
    // Replay never counts the agent's own record now, so neither does the live rule set.
    if (settled.grant && settled.grant.grantedBy === settled.recordId) store.revokeRule(settled.grant.id);
    settled.grant = store.addFromAnswer({
      toolName: settled.toolName,
      args: settled.args,
      kind: option.kind,
      ...(message.updatedInput !== undefined ? { updatedInput: message.updatedInput } : {}),
      grantedBy: message.id,
      at: message.time,
    });
    this.safely(() =>
      this.writer.service(
        `Permission answer ${option.id} to call ${settled.callId} was recorded by another client before the agent's own record; the session rules follow the stream.`,
      ),
    );
  }

  /** Decides without asking when the policy can; returns undefined when the user must be asked. */
  private decideByPolicy(call: ToolCall): PermissionDecision | undefined {
    const decision = this.policy.decide(call);
    if (!decision) return undefined;
    this.broker.remember(call.callId, {
      toolName: call.toolName,
      args: call.args,
      options: [],
      decision,
      recordId: undefined,
    });
    if (this.options.audit === 'full')
      this.safely(() => call.scope().service(decision.message ?? decision.outcome));
    if (decision.outcome !== 'allow') {
      // Today's app shows the call as denied only with an agentState entry (docs/wire.md §6.6).
      void this.mirror?.completed(
        call.callId,
        decision,
        {},
        {
          toolName: call.toolName,
          args: call.args,
          createdAt: Date.now(),
        },
      );
      call.end({ error: decision.message ?? 'Denied by policy.' });
    }
    return decision;
  }

  /**
   * Settles a request once through the broker (whose adapters mirror agentState, drop the push and
   * grant rules) and ends the call on every outcome but allow. `closingSeq` is the `seq` of the
   * record that closes the request in the stream; for outcomes without one, the call's end.
   */
  private settle(
    entry: PendingRequest,
    decision: PermissionDecision,
    closingSeq?: Promise<number | undefined>,
  ): boolean {
    const decided = this.decide(entry, decision, closingSeq);
    decided?.complete();
    return decided !== undefined;
  }

  /**
   * Takes `decision` for a request if nothing took one first (see {@link PermissionBroker.decide});
   * `complete` then releases it and ends the call on every outcome but allow. Without `closingSeq`,
   * the request closes in the stream with the record `complete` names, or the call's end.
   */
  private decide(
    entry: PendingRequest,
    decision: PermissionDecision,
    closingSeq?: Promise<number | undefined>,
  ): GateDecision | undefined {
    let closeWith!: (seq: Promise<number | undefined>) => void;
    const closing =
      closingSeq ?? new Promise<number | undefined>((resolve) => (closeWith = (s) => void s.then(resolve)));
    const decided = this.broker.decide(entry, decision, closing);
    if (!decided) return undefined;
    return {
      complete: (outcome = {}) => {
        decided.release({
          ...(outcome.answer ? { answer: outcome.answer } : {}),
          ...(outcome.decision ? { decision: outcome.decision } : {}),
        });
        const final = decided.settled.decision;
        let end: Delivery | undefined;
        if (final.outcome !== 'allow') {
          const error = final.outcome === 'cancelled' ? CANCELLED : (final.message ?? 'Denied.');
          this.safely(() => (end = entry.call.end({ error })));
        }
        if (closingSeq === undefined)
          closeWith(outcome.closedBy ?? (end ? seqOf(end) : Promise.resolve(undefined)));
      },
    };
  }

  /**
   * Rejects a request whose `permission-request` could not be stored: nothing may run, and the
   * call ends with an error (docs/permissions.md, "When the request is not stored").
   */
  private fail(entry: PendingRequest, error: unknown): void {
    const decision = cancelledDecision('cancel', 'The permission request could not be stored.');
    if (!this.broker.fail(entry, decision, error)) return;
    this.logger.warn('permission request not stored', { callId: entry.call.callId, error: String(error) });
    this.safely(() => entry.call.end({ error: 'permission request not stored' }));
  }

  /**
   * Re-decides the other pending requests by policy (after a grant or a user mode change). Each one
   * that now resolves is closed in the stream by the agent's settled note.
   */
  private reevaluate(except: string | undefined): void {
    for (const entry of this.broker.pendingRequests()) {
      if (entry.call.callId === except) continue;
      const decision = this.policy.decide(entry.call);
      if (!decision) continue;
      let note: Delivery | undefined;
      this.safely(() => {
        note = entry.call
          .scope()
          .service(`${PERMISSION_SETTLED_PREFIX}${decision.message ?? decision.outcome}`);
      });
      this.settle(entry, decision, note ? seqOf(note) : undefined);
    }
  }

  private interruptTurn(call: ToolCall): void {
    const turn = this.writer.openTurns.find((t) => t.id === call.turnId);
    turn?.abort(new Error('The user denied the tool call and asked to stop.'));
  }

  private close(call: ToolCall, decision: PermissionDecision): PermissionDecision {
    this.broker.remember(call.callId, {
      toolName: call.toolName,
      args: call.args,
      options: [],
      decision,
      recordId: undefined,
    });
    this.safely(() => call.end({ error: CANCELLED }));
    return decision;
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

/** The `seq` a delivery settles with, or undefined when it failed. */
function seqOf(delivery: Delivery): Promise<number | undefined> {
  return delivery.then(
    (d) => d.seq,
    () => undefined,
  );
}
