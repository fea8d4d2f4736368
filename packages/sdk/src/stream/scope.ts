import { SdkError } from '../errors.js';
import type { WriterCore } from './core.js';
import { stepError } from './stepErrors.js';
import { requireExactToolName } from './toolName.js';
import { ToolCall } from './toolCall.js';
import type { ToolCallOptions } from './toolCall.js';
import type { TurnState } from './turnState.js';
import type { Delivery, EmitOptions, MessageDraft } from './types.js';
import type { SessionMessage } from '../protocol/sessionMessage.js';
import { requirePlugin } from './plugins.js';
import type { AttachInput, AttachOptions } from './plugins.js';

type ContentDraft = MessageDraft extends infer D
  ? D extends { role: 'agent' }
    ? Omit<D, 'turn' | 'parentId' | 'agentId' | 'role'>
    : never
  : never;

/** Options of {@link Scope.step}. */
export interface StepOptions {
  /** Tool name of the step's call; default `step`. */
  readonly toolName?: string;
  readonly description?: string;
  readonly args?: Record<string, unknown>;
}

/**
 * Where agent content goes: the turn itself, or the inside of a tool call. Every message written
 * through a scope carries its `turn`, and inside a call `parentId` = that call and `agentId` of the
 * subagent, if any (docs/protocol.md, "parentId", "agentId").
 */
export class Scope {
  /** @internal */
  constructor(
    protected readonly core: WriterCore,
    protected readonly state: TurnState,
    /** The call this scope is inside, or undefined at the top of the turn. */
    readonly parentId: string | undefined,
    /** The subagent whose messages these are, if any. */
    readonly agentId: string | undefined,
    /** @internal the call owning this scope */
    readonly owner: ToolCall | undefined,
  ) {}

  /** The turn id every message of this scope carries. */
  get turnId(): string {
    return this.state.turnId;
  }

  /**
   * Appends agent text (markdown). `thinking: true` marks reasoning; `thinking: false` is written
   * out explicitly, as some producers do. `redact: false` stores it without redacting secrets.
   */
  text(text: string, options: { thinking?: boolean; redact?: boolean } = {}): Delivery {
    return this.emitContent(
      {
        type: 'text',
        text,
        ...(options.thinking !== undefined ? { thinking: options.thinking } : {}),
      },
      options.redact === undefined ? {} : { redact: options.redact },
    );
  }

  /** Appends reasoning text (`thinking: true`). */
  thinking(text: string): Delivery {
    return this.emitContent({ type: 'text', text, thinking: true });
  }

  /** Appends a `service` message: system status, not model output. */
  service(text: string): Delivery {
    return this.emitContent({ type: 'service', text });
  }

  /**
   * Appends `tool-call-start` and returns the call. The writer guarantees it gets exactly one
   * `tool-call-end`: by {@link ToolCall.end}, or with error `cancelled` when its parent or turn ends first.
   * Throws `stream.invalid_message` for a tool name that cannot be read exactly (docs/permissions.md, "Tool names").
   */
  toolCall(options: ToolCallOptions): ToolCall {
    this.assertOpen();
    requireExactToolName(options.toolName);
    return new ToolCall(this.core, this.state, this, options);
  }

  /**
   * Pipeline sugar: runs `fn` inside a new tool call's scope. The call ends when `fn` settles, with
   * `error` when it throws; the error is rethrown, so enclosing steps fail too and name this step.
   */
  async step<T>(
    title: string,
    fn: (scope: Scope, call: ToolCall) => T | Promise<T>,
    options: StepOptions = {},
  ): Promise<T> {
    const call = this.toolCall({
      toolName: options.toolName ?? 'step',
      title,
      description: options.description ?? '',
      args: options.args ?? {},
    });
    let result: T;
    try {
      result = await fn(call.scope(), call);
    } catch (error) {
      call.end({ error: stepError(error, title) });
      throw error;
    }
    call.end();
    return result;
  }

  /**
   * Sends a photo, video or file: detects the kind from the content, computes dimensions and a
   * ThumbHash, encrypts and uploads it, and only then appends the message that references it.
   * Needs the media pipeline (`happy-session/media`, installed by `connect()`).
   */
  attach(input: AttachInput, options: AttachOptions = {}): Promise<SessionMessage> {
    this.assertOpen();
    return requirePlugin(this.core.plugins, 'media').attach(this, input, options);
  }

  /**
   * @internal appends a content message stamped with this scope's turn, parent and agent;
   * `options.context` goes to the writer's `encode` hook.
   */
  emitContent(draft: ContentDraft, options: EmitOptions = {}): Delivery {
    this.assertOpen();
    const full = {
      ...draft,
      role: 'agent',
      turn: this.state.turnId,
      ...(this.parentId !== undefined ? { parentId: this.parentId } : {}),
      ...(this.agentId !== undefined ? { agentId: this.agentId } : {}),
    } as MessageDraft;
    return this.core.emit(full, options).delivery;
  }

  /** @internal throws when the turn or the owning call has ended. */
  assertOpen(): void {
    if (this.state.ended) {
      throw new SdkError(
        'stream.turn_ended',
        `Turn ${this.state.turnId} has ended; nothing more can be written to it.`,
        {
          hint: 'start a new turn with writer.turn()',
        },
      );
    }
    if (this.owner?.ended) {
      throw new SdkError(
        'stream.scope_closed',
        `Tool call ${this.owner.callId} has ended; its scope is closed.`,
        {
          hint: 'write before calling end() on the tool call',
        },
      );
    }
  }
}
