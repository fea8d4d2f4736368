import type { Subscription } from 'rxjs';
import { SdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import type { PermissionOption, SessionMessage } from '../protocol/sessionMessage.js';
import type { PermissionDecision, PermissionRequestOptions, PermissionRuntime } from '../stream/plugins.js';
import type { SessionWriter } from '../stream/sessionWriter.js';
import type { ToolCall } from '../stream/toolCall.js';
import { AgentStateMirror } from './agentStateMirror.js';
import { GatePolicy } from './gatePolicy.js';
import { PermissionPush } from './permissionPush.js';
import type { PermissionGateOptions } from './gateOptions.js';

export type { PermissionGateOptions } from './gateOptions.js';
import type { Answer } from './answers.js';
import { answerFromRpcBody } from './answers.js';
import { cancelledDecision, decisionFromOption } from './decision.js';
import { withinCeiling } from './modeCeiling.js';
import type { PermissionMode } from './modes.js';
import { parseMode } from './modes.js';
import { DEFAULT_PERMISSION_OPTIONS, validateOptions } from './options.js';
import { PendingRequest } from './pendingRequest.js';
import type { CompiledRules } from './policy.js';
import { compileRules } from './policy.js';
import { closeOrphans, REVOKE_PREFIX, rebuildRules } from './recovery.js';
import type { RespondResult } from './respondResult.js';
import { refuse } from './respondResult.js';
import type { SessionRule } from './sessionRules.js';
import type { ShellParser } from './shell.js';
import { loadShellParser } from './shell.js';
import { TIMEOUT_MESSAGE, validateTimeoutPolicy } from './timeouts.js';

/** Where a mode change comes from. */
export type ModeSource = 'host' | 'user' | 'ambient';

const CANCELLED = 'cancelled';

/**
 * Holds every gated tool call until the person on the other end says so (issue: permission
 * gating). A request is answered by the first valid decision of: local policy (mode and rules),
 * the stream (a user-role `permission-response`), the `permission` RPC, or the local program
 * ({@link PermissionGate.respond}). Every other answer gets a typed {@link RespondResult}. Nothing
 * here throws into the host for bad input, and no error path allows a call.
 */
export class PermissionGate implements PermissionRuntime {
  private readonly writer: SessionWriter;
  private readonly logger: Logger;
  private readonly policy: GatePolicy;
  private readonly pending = new Map<string, PendingRequest>();
  private readonly resolved = new Map<string, { decision: PermissionDecision; at: number }>();
  private readonly subscriptions: Subscription[] = [];
  private readonly unregister: Array<() => void> = [];
  private readonly mirror: AgentStateMirror | undefined;
  private readonly push: PermissionPush | undefined;
  private disposed = false;

  private constructor(
    private readonly options: PermissionGateOptions,
    shell: ShellParser,
    rules: CompiledRules,
    mode: PermissionMode,
  ) {
    this.writer = options.writer;
    this.logger = options.logger ?? silentLogger;
    this.policy = new GatePolicy(
      {
        rules,
        shell,
        ...(options.modeTable ? { modeTable: options.modeTable } : {}),
        ...(options.requiresInteraction ? { requiresInteraction: options.requiresInteraction } : {}),
        ...(options.workspaceRoot ? { workspaceRoot: options.workspaceRoot } : {}),
      },
      mode,
    );
    this.mirror = options.state ? new AgentStateMirror(options.state, this.logger) : undefined;
    this.push = options.push
      ? new PermissionPush(options.push, {
          delayMs: options.pushDelayMs ?? 500,
          sessionTitle: options.sessionTitle,
          logger: this.logger,
        })
      : undefined;
  }

  /**
   * Builds a gate, installs it on the writer and registers its channels. With `history`, it first
   * closes requests a dead process left pending and rebuilds the session rules (docs/permissions-requirements.md R13).
   * Throws `SdkError` for bad configuration (an invalid rule or mode, `onTimeout: 'allow'`).
   */
  static async create(options: PermissionGateOptions): Promise<PermissionGate> {
    const mode = parseMode(options.mode ?? 'default');
    if (!mode.ok) throw mode.error;
    const rules = compileRules({
      ...options.rules,
      allow: ['change_title', ...(options.rules?.allow ?? [])],
    });
    if (!rules.ok) throw rules.error;
    const timeouts = validateTimeoutPolicy({ timeoutMs: options.timeoutMs, onTimeout: options.onTimeout });
    if (!timeouts.ok) throw timeouts.error;
    const shell = options.shell ?? (await loadShellParser());
    const gate = new PermissionGate(options, shell, rules.value, mode.value);
    gate.start();
    return gate;
  }

  /** The current mode. */
  get mode(): PermissionMode {
    return this.policy.mode;
  }

  /** Call ids of the requests waiting for an answer. */
  get pendingCallIds(): readonly string[] {
    return [...this.pending.keys()];
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
   * Changes the mode. A `user` change (a remote input) must stay within the ceiling, is recorded in
   * the stream and re-decides pending requests; an `ambient` `default` does not downgrade
   * `bypassPermissions` (compatibility with old clients). Returns the typed refusal, if any.
   */
  setMode(input: string, source: ModeSource = 'host'): RespondResult | undefined {
    const parsed = parseMode(input);
    if (!parsed.ok) return refuse('mode_not_allowed', parsed.error.message);
    const mode = parsed.value;
    if (source !== 'host' && !withinCeiling(mode, this.options.ceiling)) {
      return refuse('mode_not_allowed', `Mode ${mode} is above the ceiling ${this.options.ceiling}.`);
    }
    if (
      source === 'ambient' &&
      mode === 'default' &&
      this.policy.mode === 'bypassPermissions' &&
      this.options.keepBypassOnAmbientDefault !== false
    ) {
      return undefined;
    }
    if (mode === this.policy.mode) return undefined;
    this.policy.mode = mode;
    this.safely(() => this.writer.service(`Permission mode changed to ${mode} (by ${source}).`));
    if (source === 'user') this.reevaluate(undefined);
    return undefined;
  }

  /**
   * Asks whether `call` may run; see {@link ToolCall.requestPermission}. Resolves, never rejects.
   * A second request for a call that is already pending returns the same promise.
   */
  requestPermission(call: ToolCall, options: PermissionRequestOptions = {}): Promise<PermissionDecision> {
    const offered = validateOptions(options.options ?? DEFAULT_PERMISSION_OPTIONS);
    if (!offered.ok) throw offered.error;
    const timeouts = validateTimeoutPolicy({
      timeoutMs: options.timeoutMs ?? this.options.timeoutMs,
      onTimeout: options.onTimeout ?? this.options.onTimeout,
    });
    if (!timeouts.ok) throw timeouts.error;

    const existing = this.pending.get(call.callId);
    if (existing) return existing.promise;
    if (call.ended) {
      return Promise.resolve(cancelledDecision('cancel', 'The tool call had already ended.'));
    }
    if (this.disposed)
      return Promise.resolve(this.close(call, cancelledDecision('shutdown', 'The gate is disposed.')));
    if (options.signal?.aborted) {
      return Promise.resolve(this.close(call, cancelledDecision('cancel', 'The request was cancelled.')));
    }

    const automatic = this.decideByPolicy(call);
    if (automatic) return Promise.resolve(automatic);

    const entry = new PendingRequest(call, offered.value, Date.now());
    try {
      // The writer redacts the request (unless the call opted out); the executor keeps call.args.
      call.parent.emitContent(
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
    this.pending.set(call.callId, entry);
    if (options.signal) {
      entry.watch(options.signal, () =>
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
    // agentState reaches the app too: it gets the arguments as the request showed them.
    const shown = call.redact === false ? call.args : this.writer.redactValue(call.args);
    void this.mirror?.added(call.callId, call.toolName, shown, entry.createdAt);
    this.push?.schedule(call);
    return entry.promise;
  }

  /**
   * Answers a pending request from the local program (a terminal prompt, a host UI). The decision
   * is recorded in the stream as the user's `permission-response`.
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

  /** The `permission` RPC handler: v2 `{ callId, optionId }` or today's legacy body. */
  handleRpc(body: unknown): RespondResult {
    if (!this.remoteAllowed()) return refuse('not_allowed', 'Remote answers are not accepted right now.');
    const answer = answerFromRpcBody(body, (callId) => this.lookup(callId));
    if ('status' in answer) return answer;
    return this.apply(answer);
  }

  /** Feeds one message from the stream; user-role `permission-response`s are answers. */
  handleStreamMessage(message: SessionMessage): RespondResult | undefined {
    if (message.type !== 'permission-response' || message.role !== 'user') return undefined;
    if (message.via) return undefined; // a record the runtime appended itself
    if (!this.remoteAllowed()) return refuse('not_allowed', 'Remote answers are not accepted right now.');
    return this.apply({
      callId: message.callId,
      optionId: message.optionId,
      via: 'stream',
      messageId: message.id,
    });
  }

  /** Cancels every pending request (source `shutdown`), releases channels, timers and listeners. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const entry of [...this.pending.values()]) {
      this.settle(entry, cancelledDecision('shutdown', 'The agent stopped before the request was answered.'));
    }
    for (const s of this.subscriptions) s.unsubscribe();
    for (const u of this.unregister) u();
    this.subscriptions.length = 0;
    this.unregister.length = 0;
  }

  /** Resolves when the agentState mirror has caught up (for tests and orderly shutdown). */
  async settled(): Promise<void> {
    await this.mirror?.settled();
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
      this.resolved.set(orphan.callId, { decision: orphan.decision, at: Date.now() });
    }
    if (history.length > 0) void this.mirror?.cancelAll('Previous agent process exited before responding');
    this.writer.use({ permissions: this });
    this.subscriptions.push(
      this.writer.lifecycle$.subscribe((event) => {
        if (event.kind === 'call-closing') {
          const entry = this.pending.get(event.callId);
          if (entry) this.settle(entry, cancelledDecision('cancel', 'The tool call ended.'));
        } else if (event.kind === 'writer-closing') {
          this.dispose();
        }
      }),
    );
    if (this.options.incoming) {
      this.subscriptions.push(this.options.incoming.subscribe((m) => this.handleStreamMessage(m)));
    }
    if (this.options.rpc)
      this.unregister.push(this.options.rpc.register('permission', (body) => this.handleRpc(body)));
  }

  private remoteAllowed(): boolean {
    try {
      return this.options.acceptRemoteAnswers?.() ?? true;
    } catch {
      return false;
    }
  }

  private lookup(callId: string): PendingRequest | RespondResult {
    const entry = this.pending.get(callId);
    if (entry) return entry;
    const done = this.resolved.get(callId);
    if (done) return { status: 'already_resolved', callId, decision: done.decision, resolvedAt: done.at };
    return refuse('unknown_request', `No permission request for call ${callId}.`);
  }

  /** Validates and applies one answer; the first valid one settles the request. */
  private apply(answer: Answer): RespondResult {
    try {
      const found = this.lookup(answer.callId);
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
      if (answer.mode !== undefined && !withinCeiling(answer.mode, this.options.ceiling)) {
        return refuse(
          'mode_not_allowed',
          `Mode ${answer.mode} is above the ceiling ${this.options.ceiling}.`,
        );
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
      const response =
        answer.via === 'stream'
          ? answer.messageId !== undefined && answer.messageTime !== undefined
            ? { id: answer.messageId, time: answer.messageTime }
            : undefined
          : this.recordResponse(found, option, answer.via);
      if (!this.settle(found, decision, { option, response })) {
        const after = this.lookup(answer.callId);
        return 'status' in after ? after : refuse('invalid_payload', 'The answer could not be applied.');
      }
      if (answer.mode !== undefined) this.setMode(answer.mode, 'user');
      if (answer.interrupt) this.interruptTurn(found.call);
      return { status: 'applied', callId: answer.callId, decision };
    } catch (error) {
      // Fail closed: an internal error never approves anything.
      this.logger.error('permission answer failed', { error: String(error) });
      return refuse('invalid_payload', 'The answer could not be applied.');
    }
  }

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

  /** Appends the user's decision that arrived by RPC or locally; returns the recorded message. */
  private recordResponse(
    entry: PendingRequest,
    option: PermissionOption,
    via: 'rpc' | 'local',
  ): { id: string; time: number } | undefined {
    let recorded: { id: string; time: number } | undefined;
    this.safely(() => {
      const { message } = this.writer.appendMessage({
        role: 'user',
        type: 'permission-response',
        callId: entry.call.callId,
        optionId: option.id,
        via,
      });
      recorded = { id: message.id, time: message.time };
    });
    return recorded;
  }

  /** Decides without asking when the policy can; returns undefined when the user must be asked. */
  private decideByPolicy(call: ToolCall): PermissionDecision | undefined {
    const decision = this.policy.decide(call);
    if (!decision) return undefined;
    this.resolved.set(call.callId, { decision, at: Date.now() });
    if (this.options.audit === 'full')
      this.safely(() => call.scope().service(decision.message ?? decision.outcome));
    if (decision.outcome !== 'allow') call.end({ error: decision.message ?? 'Denied by policy.' });
    return decision;
  }

  /**
   * Settles a request once: records the decision, grants a session rule for an `*-always` answer,
   * mirrors agentState, and ends the call on every outcome but allow.
   */
  private settle(
    entry: PendingRequest,
    decision: PermissionDecision,
    answered?: { option: PermissionOption; response: { id: string; time: number } | undefined },
  ): boolean {
    if (!entry.settle(decision)) return false;
    const callId = entry.call.callId;
    this.pending.delete(callId);
    this.push?.cancel(callId);
    this.resolved.set(callId, { decision, at: Date.now() });
    let granted: SessionRule | undefined;
    if (answered) {
      granted = this.policy.sessionRules.addFromAnswer({
        toolName: entry.call.toolName,
        args: entry.call.args,
        kind: answered.option.kind,
        // The same values a rebuild from the stream reads, so rules compare equal after a restart.
        ...(answered.response ? { grantedBy: answered.response.id, at: answered.response.time } : {}),
      });
    }
    void this.mirror?.completed(
      callId,
      decision,
      granted?.behavior === 'allow' ? { allowTools: [granted.rule] } : {},
    );
    if (decision.outcome !== 'allow') {
      const error = decision.outcome === 'cancelled' ? CANCELLED : (decision.message ?? 'Denied.');
      this.safely(() => entry.call.end({ error }));
    }
    if (granted && this.options.reevaluatePending !== false) this.reevaluate(callId);
    return true;
  }

  /** Re-decides the other pending requests by policy (after a grant or a user mode change). */
  private reevaluate(except: string | undefined): void {
    for (const entry of [...this.pending.values()]) {
      if (entry.call.callId === except) continue;
      const decision = this.policy.decide(entry.call);
      if (!decision) continue;
      if (this.options.audit === 'full') {
        this.safely(() => entry.call.scope().service(decision.message ?? decision.outcome));
      }
      this.settle(entry, decision);
    }
  }

  private interruptTurn(call: ToolCall): void {
    const turn = this.writer.openTurns.find((t) => t.id === call.turnId);
    turn?.abort(new Error('The user denied the tool call and asked to stop.'));
  }

  private close(call: ToolCall, decision: PermissionDecision): PermissionDecision {
    this.resolved.set(call.callId, { decision, at: Date.now() });
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
