import { SdkError } from '../errors.js';
import type { PermissionOption, PermissionPreview } from '../protocol/sessionMessage.js';
import { previewSummary } from '../protocol/previewSummary.js';
import type {
  RunContext,
  RunResult,
  Scope,
  ToolCall,
  ToolCallEndOptions,
  ToolCallOptions,
} from './builders.js';
import type { GatedCall } from './gatePorts.js';
import { requirePlugin } from './plugins.js';
import type { PermissionDecision, PermissionRequestOptions } from './plugins.js';
import { ScopeBuilder } from './scope.js';
import type { TurnWiring } from './scope.js';
import { frozenArgs } from './frozenArgs.js';
import type { FrozenArgs } from './frozenArgs.js';
import { fittedEndText, unstorableEndText } from './endText.js';
import { errorMessage } from './stepErrors.js';
import { handledRejection } from './stoppedTurn.js';
import type { OpenCall } from './turnState.js';
import type { Delivered, Delivery, EmitOptions, MessageDraft } from './types.js';

/**
 * A {@link ToolCall}, and the {@link GatedCall} the permission gate sees of it. Made by
 * `scope.toolCall()` through {@link TurnWiring.makeCall}.
 */
export class ToolCallBuilder implements ToolCall, GatedCall, OpenCall {
  readonly callId: string;
  readonly toolName: string;
  readonly title: string;
  readonly description: string;
  readonly args: FrozenArgs;
  readonly kind: string | undefined;
  readonly agentTitle: string | undefined;
  readonly agentId: string | undefined;
  readonly redact: boolean | undefined;
  readonly parentCall: ToolCall | undefined;
  readonly started: Delivery;
  private readonly wiring: TurnWiring;
  private endDelivery: Delivery | undefined;
  private endError: string | undefined;

  constructor(
    private readonly parentScope: ScopeBuilder,
    options: ToolCallOptions,
  ) {
    const { core, state } = (this.wiring = parentScope.wiring);
    // Copied before anything is appended: a caller mutating its own object later changes nothing.
    this.args = frozenArgs(options.args ?? {});
    this.callId = options.callId ?? core.createId();
    this.toolName = options.toolName;
    this.title = options.title ?? options.toolName;
    this.description = options.description ?? '';
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
        ...(options.resumes !== undefined ? { resumes: options.resumes } : {}),
      },
      this.emitOptions,
    );
    if (state.stopped) {
      // Made in a stopped turn: nothing was appended, so nothing is to end (docs/architecture.md, "Builders").
      this.endDelivery = this.started;
      this.endError = 'cancelled';
      return;
    }
    state.openCalls.add(this);
  }

  /** How this call's own messages are appended (its redaction opt-out). */
  private get emitOptions(): EmitOptions {
    return this.redact === undefined ? {} : { redact: this.redact };
  }

  get turnId(): string {
    return this.wiring.state.turnId;
  }

  get signal(): AbortSignal {
    return this.wiring.state.stop.signal;
  }

  get parent(): Scope {
    return this.parentScope;
  }

  get ended(): boolean {
    return this.endDelivery !== undefined;
  }

  get error(): string | undefined {
    return this.endError;
  }

  contains(other: ToolCall | OpenCall): boolean {
    for (let c: ToolCall | OpenCall | undefined = other; c; c = c.parentCall) if (c === this) return true;
    return false;
  }

  end(options: ToolCallEndOptions = {}): Delivery {
    if (this.endDelivery) return this.endDelivery;
    if (this.wiring.state.ended) {
      throw new SdkError('stream.turn_ended', `Turn ${this.wiring.state.turnId} has ended.`);
    }
    // Text its scopes' streams still hold goes before the end (docs/streaming.md).
    for (const stream of [...this.wiring.state.streams]) if (stream.owner === this) void stream.end();
    // Claim the end before anything else runs: a listener of the lifecycle event below (the gate
    // cancelling a pending request, say) that calls end() again gets this same delivery.
    let settle!: { resolve: (d: Delivered) => void; reject: (e: unknown) => void };
    this.endDelivery = new Promise<Delivered>((resolve, reject) => (settle = { resolve, reject }));
    this.endDelivery.catch(() => undefined);
    this.endError = options.error;
    const inner = [...this.wiring.state.openCalls].filter((c) => c !== this && this.contains(c)).reverse();
    for (const call of inner) call.end({ error: 'cancelled' });
    this.wiring.core.announce({
      kind: 'call-closing',
      turn: this.wiring.state.turnId,
      callId: this.callId,
      ...(options.error !== undefined ? { error: options.error } : {}),
    });
    this.wiring.state.openCalls.delete(this);
    this.appendEnd(typeof options.error === 'string' ? options.error : undefined).then(
      settle.resolve,
      settle.reject,
    );
    return this.endDelivery;
  }

  /**
   * Appends the one `tool-call-end`, never throwing: an error text too large for a record is cut
   * (`fittedEndText`); one that still cannot be appended is replaced by a short note; only if even
   * that fails does the delivery reject, with the reason.
   */
  private appendEnd(error: string | undefined): Delivery {
    try {
      return this.emitEnd(error === undefined ? undefined : fittedEndText(error));
    } catch (cause) {
      this.logEndFailure(cause);
      if (error === undefined) return handledRejection(cause);
      try {
        return this.emitEnd(unstorableEndText(error, cause));
      } catch (last) {
        this.logEndFailure(last);
        return handledRejection(last);
      }
    }
  }

  private emitEnd(error: string | undefined): Delivery {
    return this.wiring.core.emit(this.endDraft(error), this.emitOptions).delivery;
  }

  private logEndFailure(cause: unknown): void {
    this.wiring.core.logger.error('a tool-call-end could not be appended as given', {
      callId: this.callId,
      error: String(cause),
    });
  }

  private endDraft(error: string | undefined): MessageDraft {
    const scope = this.parentScope;
    return {
      type: 'tool-call-end',
      role: 'agent',
      turn: this.wiring.state.turnId,
      callId: this.callId,
      ...(scope.parentId !== undefined ? { parentId: scope.parentId } : {}),
      ...(scope.agentId !== undefined ? { agentId: scope.agentId } : {}),
      ...(error !== undefined ? { error } : {}),
    } as MessageDraft;
  }

  /** The gate's port ({@link GatedCall.appendPermissionRequest}) */
  appendPermissionRequest(
    options: readonly PermissionOption[],
    requestId: string,
    preview?: PermissionPreview,
  ): Delivery {
    return this.parentScope.emitContent(
      {
        id: requestId,
        type: 'permission-request',
        callId: this.callId,
        toolName: this.toolName,
        title: this.title,
        ...this.requestDescription(preview),
        args: { ...this.args },
        options: options.map((o) => ({ ...o })),
        ...(preview !== undefined ? { preview } : {}),
      },
      this.emitOptions,
    );
  }

  /**
   * The request's description: the call's own, then the preview's summary, so a reader that does
   * not know `preview` (today's app, through v1) still shows what the command would do.
   */
  private requestDescription(preview: PermissionPreview | undefined): { description?: string } {
    const parts = [this.description, ...(preview !== undefined ? [previewSummary(preview)] : [])];
    const text = parts.filter((p) => p !== '').join('\n\n');
    return text !== '' ? { description: text } : {};
  }

  /** The gate's port ({@link GatedCall.note}) */
  note(text: string): Delivery {
    return this.scope().service(text);
  }

  /** The gate's port ({@link GatedCall.stopTurn}) */
  stopTurn(reason: Error): void {
    this.wiring.state.stop.abort(reason);
  }

  requestPermission(options: PermissionRequestOptions = {}): Promise<PermissionDecision> {
    // Taken over (docs/writer-lease.md): nothing can be asked, and the program hears why.
    if (this.wiring.state.stoppedBy) return handledRejection(this.wiring.state.stoppedBy);
    if (this.wiring.state.stopped) {
      return Promise.resolve({
        outcome: 'cancelled',
        source: 'cancel',
        message: 'The turn was stopped; nothing was asked.',
      });
    }
    return requirePlugin(this.wiring.core.plugins, 'permissions').requestPermission(this, options);
  }

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
    let allowed: PermissionDecision;
    try {
      // The user's edit, frozen like the call's own arguments before the executor sees it.
      allowed = decision.updatedInput
        ? { ...decision, updatedInput: frozenArgs(decision.updatedInput, 'updatedInput') }
        : decision;
    } catch (error) {
      this.end({ error: errorMessage(error) });
      return { status: 'failed', error, decision };
    }
    const args = allowed.updatedInput ?? this.args;
    try {
      const value = await executor(args, { call: this, decision: allowed, signal });
      this.end();
      return { status: 'done', value, decision: allowed };
    } catch (error) {
      // A tool that gave up because the turn was stopped was cancelled, not failed.
      if (signal.aborted) {
        this.end({ error: 'cancelled' });
        return { status: 'cancelled', decision: allowed };
      }
      this.end({ error: errorMessage(error) });
      return { status: 'failed', error, decision: allowed };
    }
  }

  scope(options: { agentId?: string; agentTitle?: string } = {}): Scope {
    if (options.agentTitle !== undefined && options.agentTitle !== this.agentTitle) {
      throw new SdkError(
        'stream.agent_title_late',
        `The subagent title must be on the tool-call-start of ${this.callId}, which is already appended.`,
        { hint: 'pass agentTitle to toolCall({ agentTitle }) instead of scope()' },
      );
    }
    const agentId = options.agentId ?? this.agentId ?? this.parentScope.agentId;
    return new ScopeBuilder(this.wiring, this.callId, agentId, this);
  }
}
