import { isSdkError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import { silentLogger } from '../../logger.js';
import type { TurnEndStatus } from '../../protocol/sessionMessage.js';
import type { Scope, ToolCall, Turn } from '../../stream/builders.js';
import { writeWhole } from '../partText.js';
import { registryOf } from './callRegistry.js';
import type { CallRegistry } from './callRegistry.js';
import type { ClaudeBlock, ClaudeQuery, ReadMessage } from './messages.js';
import { readMessage } from './messages.js';
import { planOfTodos } from './todoPlan.js';
import { argsOf, callFields } from './toolCalls.js';

/** What the mirror needs of a session; `connect()`'s `Session` has it. */
export interface ClaudeMirrorSession {
  /** Starts a turn. Tool calls are gated by the session's permission gate. */
  turn(): Turn;
}

/** Options of {@link happyClaude}. */
export interface HappyClaudeOptions {
  /**
   * How long Claude Code may take to end its run once the turn is stopped (its `interrupt()`)
   * before its process is closed; default 10 s.
   */
  readonly stopGraceMs?: number;
  /** Writes each tool's result inside its call, as a code block; default true. */
  readonly toolOutput?: boolean;
  /** Where the adapter says what it skipped or could not write; default silent. */
  readonly logger?: Logger;
}

/** What {@link happyClaude} did. */
export interface HappyClaudeResult {
  /** How the last turn ended. */
  readonly status: TurnEndStatus;
  /** Turns written: one per `result` of Claude Code (one per prompt). */
  readonly turns: number;
  /** Claude Code's session id, for `options.resume` of a later `query()`. */
  readonly sessionId: string | undefined;
  /** The text of Claude Code's last `result`. */
  readonly result: string | undefined;
  /** What the stream failed with, if it failed. */
  readonly error?: unknown;
}

const DEFAULT_STOP_GRACE_MS = 10_000;

/**
 * Mirrors one Claude Agent SDK `query()` into the session (docs/claude-agent.md, "What the stream
 * becomes"): a turn from its first message to its `result` (a subagent still running in the
 * background keeps it open), the assistant's text and thinking as whole messages, each `tool_use`
 * as a tool call that its `tool_result` ends (failed when it is an error), a subagent's messages
 * (`parent_tool_use_id`) inside its `Task` call. The app's stop reaches Claude Code
 * (`interrupt()`, its background tasks stopped, the process closed after `stopGraceMs`), and the
 * turn ends cancelled. With a prompt stream (`query({ prompt: asyncIterable })`) each `result`
 * ends a turn and the next message opens the next.
 *
 * Resolves once the query's stream ends, never rejects: a stream that fails ends the turn failed,
 * with a `service` message saying why, and the result carries the error.
 */
export function happyClaude(
  session: ClaudeMirrorSession,
  query: ClaudeQuery,
  options: HappyClaudeOptions = {},
): Promise<HappyClaudeResult> {
  return new ClaudeMirror(session, query, options).run();
}

type Result = Extract<ReadMessage, { kind: 'result' }>;

class ClaudeMirror {
  private readonly registry: CallRegistry;
  private readonly logger: Logger;
  private readonly stopGraceMs: number;
  private readonly toolOutput: boolean;
  private turn: Turn | undefined;
  private turns = 0;
  private status: TurnEndStatus = 'completed';
  private sessionId: string | undefined;
  private lastResult: Result | undefined;
  private resultText: string | undefined;
  /** Tool use id → its call, for the calls of the open turn. */
  private readonly calls = new Map<string, ToolCall>();
  private readonly scopes = new Map<string, Scope>();
  /** Background task id (a subagent still at work) → the tool use that started it. */
  private readonly tasks = new Map<string, string | undefined>();
  /** Tool uses whose subagent runs in the background: they end with their task, not their result. */
  private readonly background = new Set<string>();
  private stopping = false;
  private grace: ReturnType<typeof setTimeout> | undefined;
  private readonly onStop = (): void => this.stop();

  constructor(
    private readonly session: ClaudeMirrorSession,
    private readonly query: ClaudeQuery,
    options: HappyClaudeOptions,
  ) {
    this.registry = registryOf(session);
    this.logger = options.logger ?? silentLogger;
    this.stopGraceMs = options.stopGraceMs ?? DEFAULT_STOP_GRACE_MS;
    this.toolOutput = options.toolOutput ?? true;
  }

  async run(): Promise<HappyClaudeResult> {
    const ended = this.registry.mirrorStarted();
    let error: unknown;
    try {
      // At once, so that the app shows the agent at work while Claude Code starts.
      this.openTurn();
      for await (const message of this.query) this.guard(() => this.apply(readMessage(message)));
    } catch (failure) {
      error = failure;
    } finally {
      ended();
    }
    if (this.turn) this.guard(() => this.endTurn(this.lastResult, error));
    clearTimeout(this.grace);
    return {
      status: this.status,
      turns: this.turns,
      sessionId: this.sessionId,
      result: this.resultText,
      ...(error !== undefined ? { error } : {}),
    };
  }

  private apply(message: ReadMessage): void {
    switch (message.kind) {
      case 'assistant': {
        if (!this.turn) {
          if (message.parent !== undefined) return this.logger.debug('subagent message after its turn', {});
          this.openTurn();
        }
        const scope = this.scopeFor(message.parent);
        for (const block of message.blocks) this.guard(() => this.block(scope, block));
        if (message.error) scope.service(`The model's API answered an error: ${message.error}.`);
        return;
      }
      case 'user':
        for (const block of message.blocks) {
          if (block.kind === 'tool-result') this.guard(() => this.finish(block));
        }
        return;
      case 'init':
        this.sessionId = message.sessionId ?? this.sessionId;
        return;
      case 'task-started':
        if (!message.background) return;
        this.tasks.set(message.taskId, message.toolUseId);
        if (message.toolUseId) this.background.add(message.toolUseId);
        return;
      case 'task-ended':
        return this.taskEnded(message);
      case 'compacted':
        this.turn?.service('Claude Code compacted the conversation.');
        return;
      case 'result':
        this.lastResult = message;
        this.resultText = message.text;
        // A subagent still at work keeps the turn open, unless the turn was stopped.
        if (this.turn && (this.stopping || this.tasks.size === 0)) this.endTurn(message);
        return;
      case 'ignored':
        this.logger.debug('Claude message not mirrored', { type: message.type });
    }
  }

  private block(scope: Scope, block: ClaudeBlock): void {
    switch (block.kind) {
      case 'text':
        return writeWhole(scope, block.text, false);
      case 'thinking':
        return writeWhole(scope, block.text, true);
      case 'tool-use':
        return this.startCall(scope, block);
      default:
        this.logger.debug('Claude content not mirrored', {
          type: block.kind === 'other' ? block.type : block.kind,
        });
    }
  }

  private startCall(scope: Scope, block: Extract<ClaudeBlock, { kind: 'tool-use' }>): void {
    if (this.calls.has(block.id)) return;
    let call: ToolCall;
    try {
      call = scope.toolCall(callFields(block.name, argsOf(block.input)));
    } catch (error) {
      // Not shown, so nobody may approve it: the approval hook refuses it.
      this.registry.refuse(block.id);
      throw error;
    }
    this.calls.set(block.id, call);
    this.registry.announce(block.id, call);
  }

  /** A tool's result ends its call: failed when it is an error, else with its output inside. */
  private finish(block: Extract<ClaudeBlock, { kind: 'tool-result' }>): void {
    const call = this.registry.known(block.toolUseId) ?? this.calls.get(block.toolUseId);
    // Ended already: denied or cancelled by the gate, or superseded.
    if (!call || call.ended) return;
    if (this.background.has(block.toolUseId)) return;
    if (block.isError) {
      call.end({ error: this.stopping ? 'cancelled' : block.text.trim() || 'failed' });
      return;
    }
    // A subagent's call shows the subagent's own messages, not its report again; a todo list's
    // call shows the plan, not Claude Code's acknowledgement.
    const plan = call.toolName === 'TodoWrite' ? planOfTodos(call.args) : undefined;
    const quiet = call.agentTitle !== undefined || plan !== undefined;
    if (this.toolOutput && !quiet && block.text.trim() !== '') {
      writeWhole(call.scope(), codeBlock(block.text), false);
    }
    call.end();
    // The todo list Claude Code took is the plan of the agent that wrote it (the main agent's, or
    // a subagent's), written where the call was made.
    if (plan) call.parent.plan(plan);
  }

  private taskEnded(message: Extract<ReadMessage, { kind: 'task-ended' }>): void {
    const toolUseId = message.toolUseId ?? this.tasks.get(message.taskId);
    this.tasks.delete(message.taskId);
    if (!toolUseId) return;
    this.background.delete(toolUseId);
    const call = this.registry.known(toolUseId) ?? this.calls.get(toolUseId);
    if (!call || call.ended) return;
    if (message.status === 'completed') call.end();
    else if (message.status === 'failed') call.end({ error: message.summary ?? 'failed' });
    else call.end({ error: 'cancelled' });
  }

  /** Where a message goes: the turn, or the scope of the subagent call it belongs to. */
  private scopeFor(parent: string | undefined): Scope {
    const turn = this.turn!;
    if (parent === undefined) return turn;
    const call = this.registry.known(parent) ?? this.calls.get(parent);
    if (!call || call.ended) {
      this.logger.warn('a subagent message whose call is not open is written at the top of the turn', {});
      return turn;
    }
    let scope = this.scopes.get(call.callId);
    if (!scope) {
      scope = call.scope();
      this.scopes.set(call.callId, scope);
    }
    return scope;
  }

  private openTurn(): void {
    const turn = this.session.turn();
    this.turn = turn;
    this.turns += 1;
    this.lastResult = undefined;
    turn.signal.addEventListener('abort', this.onStop, { once: true });
  }

  /** The app's stop (or `turn.abort()`): Claude Code is interrupted, its subagents stopped. */
  private stop(): void {
    if (this.stopping || !this.turn) return;
    this.stopping = true;
    const close = (): void => {
      try {
        this.query.close?.();
      } catch (error) {
        this.logger.debug('closing Claude Code failed', { error: String(error) });
      }
    };
    Promise.resolve(this.query.interrupt?.()).catch((error: unknown) => {
      this.logger.warn('interrupting Claude Code failed; closing it', { error: String(error) });
      close();
    });
    for (const taskId of this.tasks.keys()) {
      Promise.resolve(this.query.stopTask?.(taskId)).catch(() => undefined);
    }
    this.grace = setTimeout(close, this.stopGraceMs);
    this.grace.unref?.();
  }

  private endTurn(result: Result | undefined, error?: unknown): void {
    const turn = this.turn;
    if (!turn) return;
    this.turn = undefined;
    // Before the end, which aborts the signal too.
    turn.signal.removeEventListener('abort', this.onStop);
    clearTimeout(this.grace);
    let status: TurnEndStatus = 'completed';
    if (turn.signal.aborted) status = 'cancelled';
    else if (error !== undefined) {
      turn.service(`Claude Code failed: ${error instanceof Error ? error.message : String(error)}`);
      status = 'failed';
    } else if (!result) {
      turn.service('Claude Code ended without a result.');
      status = 'failed';
    } else if (!result.ok) {
      const why = result.errors.join('; ') || result.text || result.subtype;
      turn.service(`Claude Code stopped: ${why}`);
      status = 'failed';
    }
    this.status = status;
    this.stopping = false;
    for (const id of this.calls.keys()) this.registry.forget(id);
    this.calls.clear();
    this.scopes.clear();
    this.background.clear();
    // Open calls end first, cancelled.
    turn.end(status);
  }

  /** A write the stream refuses (the turn or scope has ended) is logged, not thrown into the loop. */
  private guard(write: () => void): void {
    try {
      write();
    } catch (error) {
      this.logger.warn(isSdkError(error) ? 'Claude message not written' : 'Claude message failed', {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }
}

/** `text` in a fenced code block whose fence no run of backticks inside it closes. */
function codeBlock(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text.trimEnd()}\n${fence}`;
}
