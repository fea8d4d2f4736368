import { isSdkError, SdkError } from '../errors.js';
import type { SessionMessage } from '../protocol/sessionMessage.js';
import type { Scope, StepOptions, ToolCall, ToolCallOptions } from './builders.js';
import type { PlanEntry } from '../protocol/sessionMessage.js';
import { TextStreamWriter } from './textStream.js';
import type { TextStream, TextStreamOptions } from './textStream.js';
import type { WriterCore } from './core.js';
import { requirePlugin } from './plugins.js';
import type { AttachInput, AttachOptions, AttachTarget } from './plugins.js';
import type { AskOptions, AskQuestion, AskResult, AskTarget } from './questionPorts.js';
import { stepError } from './stepErrors.js';
import { refuseStopped, turnStopped } from './stoppedTurn.js';
import { requireExactToolName } from './toolName.js';
import type { OpenCall, TurnState } from './turnState.js';
import type { Delivery, EmitOptions, MessageDraft } from './types.js';

/** `text()`'s options when none are given (one object, not one per call). */
const NO_TEXT_OPTIONS: { thinking?: boolean; redact?: boolean } = Object.freeze({});
const NO_EMIT_OPTIONS: EmitOptions = Object.freeze({});
const NO_REDACTION: EmitOptions = Object.freeze({ redact: false });

type ContentDraft = MessageDraft extends infer D
  ? D extends { role: 'agent' }
    ? Omit<D, 'turn' | 'parentId' | 'agentId' | 'role'>
    : never
  : never;

/**
 * What the builders of one turn share: the writer, the turn's state, and how a scope makes a call.
 * The writer passes the call's constructor in, so that this file does not import the call's class
 * (a call opens scopes, a scope makes calls).
 */
export interface TurnWiring {
  readonly core: WriterCore;
  readonly state: TurnState;
  makeCall(parent: ScopeBuilder, options: ToolCallOptions): ToolCall;
}

/** A {@link Scope}: the turn's top, or the inside of a call (docs/protocol.md, "parentId: nesting", "agentId: subagent identity"). */
export class ScopeBuilder implements Scope {
  constructor(
    readonly wiring: TurnWiring,
    readonly parentId: string | undefined,
    readonly agentId: string | undefined,
    readonly owner: ToolCall | undefined,
  ) {}

  get turnId(): string {
    return this.wiring.state.turnId;
  }

  text(text: string, options: { thinking?: boolean; redact?: boolean } = NO_TEXT_OPTIONS): Delivery {
    const draft: { type: 'text'; text: string; thinking?: boolean } = { type: 'text', text };
    if (options.thinking !== undefined) draft.thinking = options.thinking;
    return this.emitOwn(draft, options.redact === false ? NO_REDACTION : NO_EMIT_OPTIONS);
  }

  thinking(text: string): Delivery {
    return this.emitOwn({ type: 'text', text, thinking: true }, NO_EMIT_OPTIONS);
  }

  service(text: string): Delivery {
    return this.emitOwn({ type: 'service', text }, NO_EMIT_OPTIONS);
  }

  plan(entries: readonly PlanEntry[]): Delivery {
    return this.emitOwn({ type: 'plan', entries: entries.map((entry) => ({ ...entry })) }, NO_EMIT_OPTIONS);
  }

  textStream(options: TextStreamOptions = {}): TextStream {
    this.assertOpen();
    const { state } = this.wiring;
    const thinking = options.thinking === true;
    const stream: TextStreamWriter = new TextStreamWriter(
      {
        append: (text) => (thinking ? this.thinking(text) : this.text(text)),
        signal: state.stop.signal,
        onEnded: () => state.streams.delete(open),
      },
      options,
    );
    const open = { owner: this.owner as OpenCall | undefined, end: () => stream.end() };
    if (!stream.ended) state.streams.add(open);
    return stream;
  }

  toolCall(options: ToolCallOptions): ToolCall {
    // In a stopped turn the call is made and appends nothing (its `started` settles `stream.turn_stopped`).
    if (!this.wiring.state.stopped) this.assertOpen();
    requireExactToolName(options.toolName);
    return this.wiring.makeCall(this, options);
  }

  async step<T>(
    title: string,
    fn: (scope: Scope, call: ToolCall) => T | Promise<T>,
    options: StepOptions = {},
  ): Promise<T> {
    // In a stopped turn the step's call appends nothing, and neither does fn's scope; fn runs with
    // an aborted signal (`call.signal`) and the step resolves with what fn returns, so a program
    // that goes on after a stop does not throw (docs/architecture.md, "Builders").
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

  attach(input: AttachInput, options: AttachOptions = {}): Promise<SessionMessage> {
    const { state, core } = this.wiring;
    if (state.stopped) return refuseStopped(state, core.logger, 'attachment');
    this.assertOpen();
    // Stopped while it uploads: the pipeline's attach() rejects with `stream.turn_stopped`.
    const target: AttachTarget = {
      assertOpen: () => {
        if (state.stopped) throw turnStopped(state.turnId, 'attachment');
        this.assertOpen();
      },
      append: (content, context) => {
        if (state.stopped) throw turnStopped(state.turnId, 'attachment');
        return this.appendContent(content, { context }).message!;
      },
    };
    const sent = requirePlugin(this.wiring.core.plugins, 'media').attach(target, input, options);
    if (options.failureNote === false) return sent;
    return sent.catch((error: unknown) => {
      const note = attachFailureNote(input, options, error);
      if (note !== undefined && !state.stopped && !state.ended && !this.owner?.ended) this.service(note);
      throw error;
    });
  }

  ask(questions: readonly AskQuestion[], options: AskOptions = {}): Promise<AskResult> {
    this.assertOpen();
    const stamp = {
      role: 'agent' as const,
      turn: this.wiring.state.turnId,
      ...(this.parentId !== undefined ? { parentId: this.parentId } : {}),
      ...(this.agentId !== undefined ? { agentId: this.agentId } : {}),
    };
    const target: AskTarget = {
      turnId: this.wiring.state.turnId,
      parentId: this.parentId,
      agentId: this.agentId,
      signal: this.wiring.state.stop.signal,
      append: (content) => {
        const { message, delivery } = this.appendContent(
          { type: 'question', ...content, questions: [...content.questions] },
          {},
        );
        return { message: message as Extract<SessionMessage, { type: 'question' }>, delivery };
      },
      // Not through assertOpen: a question still open when its call or turn closes ends inside it.
      end: (content) => this.wiring.core.emit({ ...stamp, type: 'question-end', ...content }).delivery,
    };
    return requirePlugin(this.wiring.core.plugins, 'questions').ask(target, questions, options);
  }

  /** Appends a content message stamped with this scope's turn, parent and agent. */
  emitContent(draft: ContentDraft, options: EmitOptions = {}): Delivery {
    return this.appendContent(draft, options).delivery;
  }

  /**
   * {@link ScopeBuilder.emitContent} of a draft this scope has just made and nobody else holds:
   * it is stamped in place (turn, parent, agent, then the writer's id and time, in the order a
   * copy would have them) instead of being copied twice on its way (docs/performance.md, "Cutting
   * the client's CPU per message"). What it holds is still checked and redacted as any draft is.
   */
  private emitOwn(draft: ContentDraft, options: EmitOptions): Delivery {
    return this.appendContent(draft, options, true).delivery;
  }

  /** Throws when the turn or the owning call has ended. */
  assertOpen(): void {
    const { state } = this.wiring;
    if (state.ended) {
      throw new SdkError(
        'stream.turn_ended',
        `Turn ${state.turnId} has ended; nothing more can be written to it.`,
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

  /**
   * Stamps a content draft with this scope's turn, parent and agent and appends it: a copy of it,
   * or the draft itself when `owned` (see {@link ScopeBuilder.emitOwn}). For a stopped turn it
   * appends nothing: no message, and a `stream.turn_stopped` delivery.
   */
  private appendContent(
    draft: ContentDraft,
    options: EmitOptions,
    owned = false,
  ): { message: SessionMessage | undefined; delivery: Delivery } {
    const { state, core } = this.wiring;
    if (state.stopped) return { message: undefined, delivery: refuseStopped(state, core.logger, draft.type) };
    this.assertOpen();
    const full = (owned ? draft : { ...draft }) as Record<string, unknown>;
    full.role = 'agent';
    full.turn = state.turnId;
    if (this.parentId !== undefined) full.parentId = this.parentId;
    if (this.agentId !== undefined) full.agentId = this.agentId;
    return owned ? core.emitOwn(full as MessageDraft, options) : core.emit(full as MessageDraft, options);
  }
}

/**
 * The note a failed `attach()` leaves (docs/media.md, "When a file cannot be sent"): which file,
 * and the error's message without its hint. None for an abort or a stop, which the person asked
 * for, nor for an error that is not the media pipeline's.
 */
export function attachFailureNote(
  input: AttachInput,
  options: AttachOptions,
  error: unknown,
): string | undefined {
  if (!isSdkError(error) || !error.code.startsWith('media.') || error.code === 'media.aborted')
    return undefined;
  const name =
    options.name ?? (typeof input === 'string' ? (input.split(/[\\/]/).pop() ?? input) : 'attachment');
  const why = error.hint !== undefined ? error.message.slice(0, -(error.hint.length + 3)) : error.message;
  return `Could not attach ${name}: ${why}`;
}
