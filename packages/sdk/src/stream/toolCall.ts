import { SdkError } from '../errors.js';
import type { MessageDraft } from './types.js';
import type { WriterCore } from './core.js';
import { Scope } from './scope.js';
import type { TurnState } from './turnState.js';
import type { Delivered, Delivery, EmitOptions } from './types.js';
import { requirePlugin } from './plugins.js';
import type { PermissionDecision, PermissionRequestOptions } from './plugins.js';
import { errorMessage } from './stepErrors.js';

/** What a tool call is: the fields of its `tool-call-start` (docs/protocol.md, "tool-call-start"). */
export interface ToolCallOptions {
  /** Tool name, e.g. `bash`, `edit`, `grep`. */
  readonly toolName: string;
  /** Short human-readable summary (inline markdown); default: the tool name. */
  readonly title?: string;
  /** Longer description (inline markdown); default empty. */
  readonly description?: string;
  /** Tool input arguments; default `{}`. */
  readonly args?: Record<string, unknown>;
  /** Call id; default a fresh cuid2. */
  readonly callId?: string;
  /**
   * Label of the subagent this call spawns. It goes on the `tool-call-start`; the subagent's
   * messages are written through {@link ToolCall.scope}.
   */
  readonly agentTitle?: string;
  /** Id of the subagent this call spawns; default a fresh cuid2 when `agentTitle` is given. */
  readonly agentId?: string;
  /**
   * What the tool does (read, edit, execute, fetch, ...), for permission policy. Not on the wire;
   * an unknown kind is treated as the most dangerous.
   */
  readonly kind?: string;
  /**
   * `false` stores this call's own messages (`tool-call-start`, `permission-request`,
   * `tool-call-end`) without redacting secrets (docs/redaction.md, "Opting out"). Its executor gets
   * the real arguments either way.
   */
  readonly redact?: boolean;
}

/** Options of {@link ToolCall.end}. */
export interface ToolCallEndOptions {
  /** Why the call failed; leave out on success. */
  readonly error?: string;
}

/** What {@link ToolCall.run} did. */
export type RunResult<T> =
  | { readonly status: 'done'; readonly value: T; readonly decision: PermissionDecision }
  | { readonly status: 'failed'; readonly error: unknown; readonly decision: PermissionDecision }
  | { readonly status: 'denied' | 'cancelled'; readonly decision: PermissionDecision };

/** What the executor of {@link ToolCall.run} is given. */
export interface RunContext {
  /** The call being run. */
  readonly call: ToolCall;
  /** The decision that allowed it. */
  readonly decision: PermissionDecision;
  /** Aborted when the user stops the turn or the call's own `signal` aborts: stop the work then. */
  readonly signal: AbortSignal;
}

/**
 * One tool invocation, from `tool-call-start` to its one `tool-call-end`.
 */
export class ToolCall {
  readonly callId: string;
  readonly toolName: string;
  readonly title: string;
  readonly description: string;
  readonly args: Readonly<Record<string, unknown>>;
  readonly kind: string | undefined;
  readonly agentTitle: string | undefined;
  /** The subagent id its scope uses by default (when the call spawns a subagent). */
  readonly agentId: string | undefined;
  /** `false` when the call opted out of redaction. */
  readonly redact: boolean | undefined;
  /** The call whose scope this call was made in, if any. */
  readonly parentCall: ToolCall | undefined;
  /** Delivery of the `tool-call-start`. */
  readonly started: Delivery;
  private endDelivery: Delivery | undefined;
  private endError: string | undefined;

  /** @internal use `scope.toolCall()` */
  constructor(
    private readonly core: WriterCore,
    private readonly state: TurnState,
    private readonly parentScope: Scope,
    options: ToolCallOptions,
  ) {
    this.callId = options.callId ?? core.createId();
    this.toolName = options.toolName;
    this.title = options.title ?? options.toolName;
    this.description = options.description ?? '';
    this.args = options.args ?? {};
    this.kind = options.kind;
    this.agentTitle = options.agentTitle;
    this.agentId = options.agentId ?? (options.agentTitle !== undefined ? core.createId() : undefined);
    this.parentCall = parentScope.owner;
    this.redact = options.redact;
    this.started = parentScope.emitContent(
      {
        type: 'tool-call-start',
        callId: this.callId,
        toolName: this.toolName,
        title: this.title,
        description: this.description,
        args: { ...this.args },
        ...(this.agentTitle !== undefined ? { agentTitle: this.agentTitle } : {}),
      },
      this.emitOptions,
    );
    state.openCalls.add(this);
  }

  /** How this call's own messages are appended (its redaction opt-out). */
  get emitOptions(): EmitOptions {
    return this.redact === undefined ? {} : { redact: this.redact };
  }

  /** The turn this call belongs to. */
  get turnId(): string {
    return this.state.turnId;
  }

  /**
   * The turn's signal: aborted when the user stops the turn (the app's stop, `turn.abort()`) or the
   * turn ends. {@link ToolCall.requestPermission} and {@link ToolCall.run} follow it by default.
   */
  get signal(): AbortSignal {
    return this.state.stop.signal;
  }

  /** The scope the call was made in: its `tool-call-start` and `tool-call-end` carry that scope's parent and agent. */
  get parent(): Scope {
    return this.parentScope;
  }

  /** True once `tool-call-end` has been appended. */
  get ended(): boolean {
    return this.endDelivery !== undefined;
  }

  /** The error the call ended with, if it ended with one. */
  get error(): string | undefined {
    return this.endError;
  }

  /** True when `other` is this call or nested (at any depth) inside it. */
  contains(other: ToolCall): boolean {
    for (let c: ToolCall | undefined = other; c; c = c.parentCall) if (c === this) return true;
    return false;
  }

  /**
   * Appends the call's one `tool-call-end`. Calls still open inside it end first, with error
   * `cancelled`. Ending twice returns the first delivery and appends nothing.
   */
  end(options: ToolCallEndOptions = {}): Delivery {
    if (this.endDelivery) return this.endDelivery;
    if (this.state.ended) {
      throw new SdkError('stream.turn_ended', `Turn ${this.state.turnId} has ended.`);
    }
    // Claim the end before anything else runs: a listener of the lifecycle event below (the gate
    // cancelling a pending request, say) that calls end() again gets this same delivery.
    let settle!: { resolve: (d: Delivered) => void; reject: (e: unknown) => void };
    this.endDelivery = new Promise<Delivered>((resolve, reject) => (settle = { resolve, reject }));
    this.endDelivery.catch(() => undefined);
    this.endError = options.error;
    const inner = [...this.state.openCalls].filter((c) => c !== this && this.contains(c)).reverse();
    for (const call of inner) call.end({ error: 'cancelled' });
    this.core.announce({
      kind: 'call-closing',
      turn: this.state.turnId,
      callId: this.callId,
      ...(options.error !== undefined ? { error: options.error } : {}),
    });
    const scope = this.parentScope;
    const draft = {
      type: 'tool-call-end',
      role: 'agent',
      turn: this.state.turnId,
      callId: this.callId,
      ...(scope.parentId !== undefined ? { parentId: scope.parentId } : {}),
      ...(scope.agentId !== undefined ? { agentId: scope.agentId } : {}),
      ...(options.error !== undefined ? { error: options.error } : {}),
    } as MessageDraft;
    this.state.openCalls.delete(this);
    this.core.emit(draft, this.emitOptions).delivery.then(settle.resolve, settle.reject);
    return this.endDelivery;
  }

  /**
   * Asks the user (or the policy) whether this call may run: appends `permission-request` and
   * waits for the first valid answer. Resolves for every answer; every outcome other than `allow`
   * has already ended the call. The request follows the turn's {@link ToolCall.signal} as well as
   * `options.signal`: either aborting resolves it `cancelled`. Rejects only when the
   * `permission-request` could not be stored (its delivery failed: nobody can answer it), with that
   * delivery's error; the call has then ended with an error. Needs the permission gate (installed
   * by `connect()`, or `await PermissionGate.create({ writer })`). Throws `SdkError` only for bad
   * configuration (invalid options, `onTimeout: 'allow'`).
   */
  requestPermission(options: PermissionRequestOptions = {}): Promise<PermissionDecision> {
    return requirePlugin(this.core.plugins, 'permissions').requestPermission(this, options);
  }

  /**
   * Gates, then runs: the executor runs only on allow, with the approved arguments (or the user's
   * validated `updatedInput`), and the call ends with the outcome (`error` on deny, cancel or a
   * throwing executor). A stop of the turn (or of `options.signal`) before the executor starts
   * cancels the call instead, and so does an executor that throws once the stop came (`cancelled`). The result says what happened; it rejects only when the permission
   * request could not be stored (see {@link ToolCall.requestPermission}), and the executor has not run.
   */
  async run<T>(
    executor: (args: Readonly<Record<string, unknown>>, context: RunContext) => T | Promise<T>,
    options: PermissionRequestOptions = {},
  ): Promise<RunResult<T>> {
    const decision = await this.requestPermission(options);
    if (decision.outcome !== 'allow') {
      return { status: decision.outcome === 'deny' ? 'denied' : 'cancelled', decision };
    }
    const signal = options.signal ? AbortSignal.any([this.signal, options.signal]) : this.signal;
    if (signal.aborted) {
      // Stopped between the allow and the start: the tool does not run.
      if (!this.ended) this.end({ error: 'cancelled' });
      return {
        status: 'cancelled',
        decision: {
          outcome: 'cancelled',
          source: 'cancel',
          message: 'The turn was stopped before the tool ran.',
        },
      };
    }
    const args = decision.updatedInput ?? this.args;
    try {
      const value = await executor(args, { call: this, decision, signal });
      this.end();
      return { status: 'done', value, decision };
    } catch (error) {
      // A tool that gave up because the turn was stopped was cancelled, not failed.
      if (signal.aborted) {
        this.end({ error: 'cancelled' });
        return { status: 'cancelled', decision };
      }
      this.end({ error: errorMessage(error) });
      return { status: 'failed', error, decision };
    }
  }

  /**
   * A scope inside this call: messages written through it carry `parentId` = this call, and
   * `agentId` of the subagent (given here, given at creation, or inherited from the enclosing scope).
   */
  scope(options: { agentId?: string; agentTitle?: string } = {}): Scope {
    if (options.agentTitle !== undefined && options.agentTitle !== this.agentTitle) {
      throw new SdkError(
        'stream.agent_title_late',
        `The subagent title must be on the tool-call-start of ${this.callId}, which is already appended.`,
        { hint: 'pass agentTitle to toolCall({ agentTitle }) instead of scope()' },
      );
    }
    const agentId = options.agentId ?? this.agentId ?? this.parentScope.agentId;
    return new Scope(this.core, this.state, this.callId, agentId, this);
  }
}
