// One ACP prompt turn written as one v2 turn: session updates become text, thinking and tool calls,
// and permission requests go through the session's permission gate.
// In your project, import from 'happy-session' instead of ../../src.
import { isDeepStrictEqual } from 'node:util';
import type * as acp from '@agentclientprotocol/sdk';
import { isSdkError, silentLogger } from 'happy-session';
import type { Logger, PermissionDecision, ToolCall, Turn } from 'happy-session';
import { answerForAgent, offerFromAgent } from './permissionOptions.js';
import { planEntriesOf } from './planUpdate.js';

type ChunkKind = 'text' | 'thinking';

/** Text chunks waiting to become one v2 message. */
interface PendingChunks {
  readonly kind: ChunkKind;
  readonly messageId: string | undefined;
  text: string;
}

const CANCELLED: acp.RequestPermissionResponse = { outcome: { outcome: 'cancelled' } };

/**
 * Writes what the agent reports during one prompt into `turn`.
 *
 * Streamed chunks are coalesced: consecutive chunks of the same kind (and the same ACP
 * `messageId`, when the agent sends one) make one `text` message, written out when the kind
 * changes, when a tool call or permission request comes, and when the turn ends. ACP tool call ids
 * are mapped to fresh v2 call ids.
 */
export class TurnTranslator {
  private pending: PendingChunks | undefined;
  private readonly calls = new Map<string, ToolCall>();
  private closed = false;

  constructor(
    private readonly turn: Turn,
    private readonly logger: Logger = silentLogger,
  ) {}

  /** Applies one `session/update`. Updates after {@link TurnTranslator.close} are dropped. */
  update(update: acp.SessionUpdate): void {
    if (this.closed) return;
    this.guard(() => this.apply(update));
  }

  /**
   * Answers one `session/request_permission`: asks the user through the gate with the agent's
   * options, then answers the agent by kind (see `answerForAgent`). Aborting `signal`, or the turn's
   * own signal (the user's `abort`), answers `cancelled`.
   */
  async requestPermission(
    params: acp.RequestPermissionRequest,
    signal?: AbortSignal,
  ): Promise<acp.RequestPermissionResponse> {
    if (this.closed) return CANCELLED;
    this.flush();
    let call: ToolCall;
    try {
      call = this.callAskedAbout(params.toolCall);
    } catch (error) {
      this.report('permission request not written', error);
      return CANCELLED;
    }
    if (call.ended) return CANCELLED;
    const offer = offerFromAgent(params.options);
    const signals = signal ? [this.turn.signal, signal] : [this.turn.signal];
    let decision: PermissionDecision;
    try {
      decision = await call.requestPermission({ options: offer.options, signal: AbortSignal.any(signals) });
    } catch (error) {
      // Bad configuration (no gate on this session): nothing was decided, so nothing may run.
      this.report('permission request failed', error);
      this.guard(() => call.end({ error: 'cancelled' }));
      return CANCELLED;
    }
    const outcome = answerForAgent(decision, offer);
    if (outcome.outcome === 'cancelled' && decision.outcome === 'allow') {
      // Allowed here, but the agent offers no option that allows this little (only "always"):
      // the tool does not run, and the stream says why.
      this.guard(() =>
        call.end({
          error: 'The agent offers no allow-once option; answered cancelled instead of allow-always.',
        }),
      );
    }
    return { outcome };
  }

  /** Writes out the text still buffered; called before anything else goes into the turn. */
  flush(): void {
    const pending = this.pending;
    this.pending = undefined;
    if (!pending || pending.text.length === 0 || this.closed) return;
    this.guard(() =>
      pending.kind === 'thinking' ? this.turn.thinking(pending.text) : this.turn.text(pending.text),
    );
  }

  /** Flushes and stops writing; later updates and requests of this turn are dropped or cancelled. */
  close(): void {
    this.flush();
    this.closed = true;
  }

  private apply(update: acp.SessionUpdate): void {
    switch (update.sessionUpdate) {
      case 'agent_message_chunk':
        return this.chunk('text', update);
      case 'agent_thought_chunk':
        return this.chunk('thinking', update);
      case 'tool_call':
      case 'tool_call_update': {
        this.flush();
        const call = this.callFor(update);
        if (update.status === 'completed') call.end();
        else if (update.status === 'failed') call.end({ error: failureText(update) });
        return;
      }
      case 'plan':
        // The whole plan, replacing the one before (ACP and v2 alike).
        this.flush();
        this.turn.plan(planEntriesOf(update));
        return;
      default:
        // Modes, commands, usage: not part of the v2 turn.
        this.logger.debug('ACP update not mapped', { sessionUpdate: update.sessionUpdate });
    }
  }

  private chunk(kind: ChunkKind, update: acp.ContentChunk): void {
    const text = chunkText(update.content);
    if (text === undefined) {
      this.logger.debug('ACP content not mapped', { type: update.content.type });
      return;
    }
    const messageId = update.messageId ?? undefined;
    const pending = this.pending;
    if (pending && (pending.kind !== kind || (messageId !== undefined && pending.messageId !== messageId))) {
      this.flush();
    }
    if (this.pending) this.pending.text += text;
    else this.pending = { kind, messageId, text };
  }

  /** The v2 call of an ACP tool call id, started from what the agent sent if it is new. */
  private callFor(update: acp.ToolCallUpdate): ToolCall {
    const known = this.calls.get(update.toolCallId);
    if (known) return known;
    const toolName = update.name ?? update.kind ?? 'other';
    const call = this.turn.toolCall({
      toolName,
      title: update.title || toolName,
      args: argsOf(update.rawInput),
      ...(update.kind ? { kind: update.kind } : {}),
    });
    this.calls.set(update.toolCallId, call);
    return call;
  }

  /**
   * The v2 call a permission request is about. The request shows, and its grant covers, what the
   * agent's `session/request_permission` says (its `toolCall`'s `rawInput`, `title`, `name`,
   * `kind`), falling back to what the `tool_call` announced for a field it leaves out. When what it
   * says differs from the call already started, that call ends (error `superseded`) and a new one
   * starts with the request's fields, so that the person approves the input the agent will use.
   */
  private callAskedAbout(asked: acp.ToolCallUpdate): ToolCall {
    const known = this.calls.get(asked.toolCallId);
    if (!known || known.ended) return this.callFor(asked);
    const fields = {
      toolName: asked.name ?? known.toolName,
      title: asked.title || known.title,
      args: asked.rawInput === undefined || asked.rawInput === null ? known.args : argsOf(asked.rawInput),
      kind: asked.kind ?? known.kind,
    };
    const same =
      fields.toolName === known.toolName &&
      fields.title === known.title &&
      fields.kind === known.kind &&
      isDeepStrictEqual(fields.args, { ...known.args });
    if (same) return known;
    this.calls.delete(asked.toolCallId);
    known.end({ error: 'superseded: the permission request names other input than the tool call announced' });
    const call = this.turn.toolCall({
      toolName: fields.toolName,
      title: fields.title,
      args: { ...fields.args },
      ...(fields.kind !== undefined ? { kind: fields.kind } : {}),
    });
    this.calls.set(asked.toolCallId, call);
    return call;
  }

  /** Runs a stream write; a write the stream refuses (the turn has ended) is logged, not thrown into the agent. */
  private guard(write: () => unknown): void {
    try {
      write();
    } catch (error) {
      if (!isSdkError(error)) throw error;
      this.report('ACP update not written', error);
    }
  }

  private report(message: string, error: unknown): void {
    this.logger.warn(message, { error: error instanceof Error ? error.message : String(error) });
  }
}

/** v2 `args` is an object; ACP `rawInput` may be anything. */
function argsOf(rawInput: unknown): Record<string, unknown> {
  if (rawInput === undefined || rawInput === null) return {};
  if (typeof rawInput === 'object' && !Array.isArray(rawInput))
    return { ...(rawInput as Record<string, unknown>) };
  return { input: rawInput };
}

function chunkText(content: acp.ContentBlock): string | undefined {
  if (content.type === 'text') return content.text;
  if (content.type === 'resource_link') return `[${content.title ?? content.name}](${content.uri})`;
  return undefined;
}

/** The error of a failed call: the text the agent attached, or a generic word. */
function failureText(update: acp.ToolCallUpdate): string {
  for (const item of update.content ?? []) {
    if (item.type === 'content' && item.content.type === 'text' && item.content.text.trim().length > 0) {
      return item.content.text;
    }
  }
  return 'failed';
}
