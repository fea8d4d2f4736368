import type { ModelMessage, TextStreamPart, ToolApprovalResponse, ToolSet } from 'ai';
import type { TurnEndStatus } from '../../protocol/sessionMessage.js';
import type { Turn } from '../../stream/builders.js';
import type { PermissionRequestOptions } from '../../stream/plugins.js';
import { CallRegistry } from '../callRegistry.js';
import type { AdapterToolInfo } from '../toolCalls.js';
import { AiStreamMirror } from './streamMirror.js';
import type { ApprovalRequest, CarriedResult } from './streamMirror.js';

/** What the bridge needs of a session: a turn to write into (`Session` has it). */
export interface AiSdkTurnSource {
  /** Starts a turn (`Session.turn()`). */
  turn(): Turn;
}

/** What the bridge hands the function that starts the framework's stream. */
export interface AiSdkCall {
  /** The conversation so far: pass it as `streamText({ messages })`. */
  readonly messages: ModelMessage[];
  /** Aborted when the person stops the turn: pass it as `streamText({ abortSignal })`. */
  readonly abortSignal: AbortSignal;
}

/** The part of `streamText()`'s result the bridge reads. */
export interface AiSdkStream {
  /** Every part of the stream, which the bridge mirrors. */
  readonly fullStream: AsyncIterable<TextStreamPart<ToolSet>>;
  /** The round's response messages, added to the conversation. */
  readonly response: PromiseLike<{ readonly messages: readonly ModelMessage[] }>;
}

/** Starts one stream of the framework: `(call) => streamText({ model, tools, ...call })`. */
export type AiSdkStart = (call: AiSdkCall) => AiSdkStream | PromiseLike<AiSdkStream>;

/** How every approval request is asked: the gate's per-request options (docs/permissions.md). */
export type AiSdkApprovalOptions = Omit<PermissionRequestOptions, 'signal'>;

/** Options of {@link AiSdkBridge}. */
export interface AiSdkBridgeOptions {
  /** What the gate and the app should know of each tool, by name. */
  readonly tools?: Readonly<Record<string, AdapterToolInfo>>;
  /** Options of every permission request (a timeout, the choices offered). */
  readonly approval?: AiSdkApprovalOptions;
  /** Rounds of approvals one turn may take before it fails; default 100. */
  readonly maxRounds?: number;
}

/** Options of {@link AiSdkBridge.run}. */
export interface AiSdkTurnOptions {
  /** The conversation so far, the person's prompt last. */
  readonly messages: readonly ModelMessage[];
  /** The turn to write into; default a new turn of the session. */
  readonly turn?: Turn;
}

/** How a turn went. */
export interface AiSdkTurnResult {
  /** The turn's end: `cancelled` when the person stopped it. */
  readonly status: TurnEndStatus;
  /** The conversation after the turn (approvals and results included): the next turn's input. */
  readonly messages: ModelMessage[];
  /** The id of the session's turn. */
  readonly turnId: string;
  /** What failed the turn, when it failed. */
  readonly error?: unknown;
}

const DEFAULT_MAX_ROUNDS = 100;

/**
 * The Vercel AI SDK on a session (docs/integrations.md): {@link AiSdkBridge.run} mirrors one
 * turn's stream, asks the session's permission gate for every `tool-approval-request` and resumes
 * the framework with its answers; {@link AiSdkBridge.subagent} nests the stream of a model a tool
 * runs under that tool's call.
 */
export class AiSdkBridge {
  private readonly calls = new CallRegistry();
  private readonly tools: Readonly<Record<string, AdapterToolInfo>>;

  constructor(
    private readonly session: AiSdkTurnSource,
    private readonly options: AiSdkBridgeOptions = {},
  ) {
    this.tools = options.tools ?? {};
  }

  /**
   * Runs one turn: starts the stream with the conversation and the turn's signal, mirrors it, and
   * while the framework waits for approvals, asks the gate and starts it again with the answers as
   * a `tool` message of `tool-approval-response` parts. Ends the turn with its outcome.
   */
  async run(start: AiSdkStart, options: AiSdkTurnOptions): Promise<AiSdkTurnResult> {
    const turn = options.turn ?? this.session.turn();
    const mirror = new AiStreamMirror(turn, this.calls, this.tools);
    const flushOnStop = (): void => mirror.flushText();
    turn.signal.addEventListener('abort', flushOnStop, { once: true });
    const history: ModelMessage[] = [...options.messages];
    const maxRounds = this.options.maxRounds ?? DEFAULT_MAX_ROUNDS;
    let answered: { index: number; denied: Map<string, string> } | undefined;
    let status: TurnEndStatus = 'completed';
    let error: unknown;
    try {
      for (let round = 0; !turn.signal.aborted; round++) {
        const stream = await start({ messages: [...history], abortSignal: turn.signal });
        const outcome = await mirror.consume(stream.fullStream);
        if (answered) carryResults(history, answered, outcome.carried);
        if (outcome.error !== undefined && !turn.signal.aborted) {
          status = 'failed';
          error = outcome.error;
          break;
        }
        if (outcome.aborted || turn.signal.aborted) break;
        history.push(...(await stream.response).messages);
        if (outcome.approvals.length === 0) break;
        if (round + 1 >= maxRounds) {
          status = 'failed';
          error = new Error(`The turn asked for approvals ${maxRounds} times; stopped there.`);
          break;
        }
        const answers = await Promise.all(outcome.approvals.map((a) => this.answer(a, history)));
        if (answers.some((a) => a === undefined) || turn.signal.aborted) {
          // A request cancelled without a stop (a timeout that cancels) cancels the turn too.
          status = 'cancelled';
          break;
        }
        const parts = answers as ToolApprovalResponse[];
        answered = {
          index: history.length,
          denied: new Map(
            outcome.approvals.flatMap((a, i) =>
              parts[i]!.approved ? [] : [[a.toolCallId, parts[i]!.reason ?? '']],
            ),
          ),
        };
        history.push({ role: 'tool', content: parts });
      }
    } catch (thrown) {
      if (!turn.signal.aborted) {
        status = 'failed';
        error = thrown;
      }
    } finally {
      turn.signal.removeEventListener('abort', flushOnStop);
      this.calls.forget(mirror.callIds);
    }
    if (status === 'completed' && turn.signal.aborted) status = 'cancelled';
    turn.end(status);
    return { status, messages: history, turnId: turn.id, ...(error !== undefined ? { error } : {}) };
  }

  /**
   * Mirrors the stream of a model that a tool runs (a subagent) inside that tool's call, and
   * resolves with its text, the tool's output. Call it from the tool's `execute` with the
   * `toolCallId` the AI SDK gives it; give the tool an `agentTitle` in the bridge's `tools`.
   */
  async subagent(
    toolCallId: string,
    stream: AiSdkStream,
    options: { signal?: AbortSignal } = {},
  ): Promise<string> {
    const call = await this.calls.whenStarted(toolCallId, options.signal);
    const nested = new AiStreamMirror(call.scope(), this.calls, this.tools);
    try {
      const outcome = await nested.consume(stream.fullStream);
      if (outcome.error !== undefined) throw outcome.error;
      return outcome.text;
    } finally {
      this.calls.forget(nested.callIds);
    }
  }

  /**
   * The gate's answer to one approval request, as the framework takes it; undefined when the
   * request was cancelled (the turn stopped, or a timeout that cancels).
   */
  private async answer(
    approval: ApprovalRequest,
    history: ModelMessage[],
  ): Promise<ToolApprovalResponse | undefined> {
    const call = this.calls.get(approval.toolCallId);
    if (!call || call.ended) {
      return {
        type: 'tool-approval-response',
        approvalId: approval.approvalId,
        approved: false,
        reason: 'The call was closed.',
      };
    }
    const decision = await call.requestPermission(this.options.approval ?? {});
    if (decision.outcome === 'cancelled') return undefined;
    if (decision.outcome === 'deny') {
      return {
        type: 'tool-approval-response',
        approvalId: approval.approvalId,
        approved: false,
        reason: decision.message ?? 'Denied by the user.',
      };
    }
    if (decision.updatedInput) editInput(history, approval.toolCallId, decision.updatedInput);
    return { type: 'tool-approval-response', approvalId: approval.approvalId, approved: true };
  }
}

/** `new AiSdkBridge(session, options)`. */
export function aiSdkBridge(session: AiSdkTurnSource, options: AiSdkBridgeOptions = {}): AiSdkBridge {
  return new AiSdkBridge(session, options);
}

/**
 * The person's edited input, in place of the model's in the assistant message that made the call:
 * the AI SDK runs an approved call with the input its history holds.
 */
function editInput(
  history: ModelMessage[],
  toolCallId: string,
  input: Readonly<Record<string, unknown>>,
): void {
  history.forEach((message, index) => {
    if (message.role !== 'assistant' || typeof message.content === 'string') return;
    if (!message.content.some((p) => p.type === 'tool-call' && p.toolCallId === toolCallId)) return;
    history[index] = {
      ...message,
      content: message.content.map((p) =>
        p.type === 'tool-call' && p.toolCallId === toolCallId ? { ...p, input: structuredClone(input) } : p,
      ),
    };
  });
}

/**
 * Adds the results of the answered calls to the `tool` message of the answers, so the
 * conversation handed back holds each call's result (the framework's own response messages of the
 * next round leave them out).
 */
function carryResults(
  history: ModelMessage[],
  answered: { index: number; denied: ReadonlyMap<string, string> },
  carried: readonly CarriedResult[],
): void {
  const message = history[answered.index];
  if (!message || message.role !== 'tool' || carried.length === 0) return;
  history[answered.index] = {
    ...message,
    content: [
      ...message.content,
      ...carried.map((c) => ({
        type: 'tool-result' as const,
        toolCallId: c.toolCallId,
        toolName: c.toolName,
        output:
          c.output.type === 'execution-denied'
            ? { type: 'execution-denied' as const, reason: answered.denied.get(c.toolCallId) ?? 'Denied.' }
            : (c.output as Exclude<CarriedResult['output'], { type: 'execution-denied' }>),
      })),
    ],
  } as ModelMessage;
}
