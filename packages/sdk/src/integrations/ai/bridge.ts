import type { ModelMessage, TextStreamPart, ToolApprovalResponse, ToolSet } from 'ai';
import { canonicalJson } from '../../crypto/recordSeal.js';
import { SdkError } from '../../errors.js';
import type { TurnEndStatus } from '../../protocol/sessionMessage.js';
import type { RunContext, Turn } from '../../stream/builders.js';
import type { PermissionRequestOptions } from '../../stream/plugins.js';
import { CallRegistry } from '../callRegistry.js';
import type { AdapterToolInfo } from '../toolCalls.js';
import { argsOf } from '../toolCalls.js';
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
  /**
   * Calls the bridge refused to run although an approval named them, each with why:
   * `integration.duplicate_call_id`, `integration.approval_mismatch` or
   * `integration.foreign_approval` (docs/integrations.md, "One shown call, one run").
   */
  readonly refused?: readonly SdkError[];
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
    const refused: SdkError[] = [];
    const history = withoutForeignApprovals(options.messages, refused);
    for (const error of refused) turn.service(error.message);
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
        const answers = await Promise.all(
          outcome.approvals.map((a) => this.answer(a, history, outcome.duplicates, refused)),
        );
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
    // Every call of the conversation handed back has its result, so the next prompt runs on it.
    closeOpenCalls(history, status);
    turn.end(status);
    return {
      status,
      messages: history,
      turnId: turn.id,
      ...(error !== undefined ? { error } : {}),
      ...(refused.length > 0 ? { refused } : {}),
    };
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
   * What `commandExecutor()` of `happy-session/sandbox` needs to run an approved call's command
   * from the tool's `execute`, with the `toolCallId` and `abortSignal` the AI SDK gives it:
   * `commandExecutor(options)(input, await bridge.runContext(toolCallId, { signal: abortSignal }))`.
   * The call's stop kills the command's whole process group; the bridge writes the tool's result
   * into the call, so `streamOutput: false` keeps the output from showing twice (docs/integrations.md,
   * "Running a tool's command").
   * @throws {SdkError} `integration.not_approved` for a call the person did not allow through the bridge.
   */
  runContext(toolCallId: string, options: { signal?: AbortSignal } = {}): Promise<RunContext> {
    return this.calls.runContext(toolCallId, options.signal);
  }

  /**
   * The gate's answer to one approval request, as the framework takes it; undefined when the
   * request was cancelled (the turn stopped, or a timeout that cancels). An approval is given only
   * for exactly the call the person was shown: a call id that came twice, or an approval whose
   * tool name or input differ from the shown call's, is denied without asking, and so is an allow
   * when the conversation would run anything but the shown (or the person's edited) input.
   */
  private async answer(
    approval: ApprovalRequest,
    history: ModelMessage[],
    duplicates: ReadonlySet<string>,
    refused: SdkError[],
  ): Promise<ToolApprovalResponse | undefined> {
    const deny = (reason: string): ToolApprovalResponse => ({
      type: 'tool-approval-response',
      approvalId: approval.approvalId,
      approved: false,
      reason,
    });
    const refuse = (code: RefusalCode, message: string): ToolApprovalResponse => {
      const refusal = new SdkError(code, message, { hint: REFUSAL_HINTS[code] });
      refused.push(refusal);
      const call = this.calls.get(approval.toolCallId);
      if (call && !call.ended) call.end({ error: message });
      return deny(message);
    };
    if (duplicates.has(approval.toolCallId)) {
      return refuse(
        'integration.duplicate_call_id',
        `Two tool calls of one turn carried the id ${approval.toolCallId}; neither runs.`,
      );
    }
    const call = this.calls.get(approval.toolCallId);
    if (!call || call.ended) return deny('The call was closed.');
    const shown = digestOf(call.toolName, call.args);
    if (digestOf(approval.toolName, argsOf(approval.input)) !== shown) {
      return refuse(
        'integration.approval_mismatch',
        `The approval for ${approval.toolCallId} names another tool or input than the call shown; it does not run.`,
      );
    }
    const decision = await call.requestPermission(this.options.approval ?? {});
    if (decision.outcome === 'cancelled') return undefined;
    if (decision.outcome === 'deny') return deny(decision.message ?? 'Denied by the user.');
    if (decision.updatedInput) editInput(history, approval.toolCallId, decision.updatedInput);
    const allowed = decision.updatedInput ? digestOf(call.toolName, decision.updatedInput) : shown;
    const runs = callsIn(history, approval.toolCallId);
    if (runs.length !== 1 || digestOf(runs[0]!.toolName, argsOf(runs[0]!.input)) !== allowed) {
      return refuse(
        'integration.approval_mismatch',
        `The conversation would run call ${approval.toolCallId} with another tool or input than the one allowed; it does not run.`,
      );
    }
    this.calls.allow(approval.toolCallId, decision);
    return { type: 'tool-approval-response', approvalId: approval.approvalId, approved: true };
  }
}

type RefusalCode =
  'integration.duplicate_call_id' | 'integration.approval_mismatch' | 'integration.foreign_approval';

const REFUSAL_HINTS: Readonly<Record<RefusalCode, string>> = {
  'integration.duplicate_call_id':
    'the model (or its provider) reused a tool call id within a turn; nothing ran, ask it again',
  'integration.approval_mismatch':
    "an approval counts only for the exact tool and input the person was shown; don't change the conversation's calls between rounds",
  'integration.foreign_approval':
    "approvals come from the session's gate during run(); pass the messages run() returned, without approvals added",
};

/** The digest an approval is bound to: the tool's name and its input, in canonical JSON. */
function digestOf(toolName: string, args: Readonly<Record<string, unknown>>): string {
  return canonicalJson({ toolName, args });
}

/** Every `tool-call` part of the conversation with this id (the framework runs the last one). */
function callsIn(
  history: readonly ModelMessage[],
  toolCallId: string,
): { readonly toolName: string; readonly input: unknown }[] {
  return history.flatMap((message) =>
    message.role === 'assistant' && typeof message.content !== 'string'
      ? message.content.flatMap((p) => (p.type === 'tool-call' && p.toolCallId === toolCallId ? [p] : []))
      : [],
  );
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

/**
 * The conversation a turn starts from, with every approval in it that is still waiting to be
 * used (its call has no result yet), and every approval in the tool messages it ends with (the
 * ones the framework acts on, result or not), turned into a denial: the gate gives approvals
 * during `run()`, and the history `run()` hands back holds every call's result, so such an
 * approval was not the gate's, and the framework would run its call before anyone was asked (or
 * run a call that already ran again). Each one adds an `integration.foreign_approval` to
 * `refused`.
 */
function withoutForeignApprovals(messages: readonly ModelMessage[], refused: SdkError[]): ModelMessage[] {
  const results = new Set<string>();
  const callOf = new Map<string, string>();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result') results.add(part.toolCallId);
      if (part.type === 'tool-approval-request') callOf.set(part.approvalId, part.toolCallId);
    }
  }
  // The framework acts on the approvals of the tool messages the conversation ends with: there a
  // result beside the call (which anyone can write) does not make an approval the gate's.
  let trailing = messages.length;
  while (trailing > 0 && messages[trailing - 1]!.role === 'tool') trailing--;
  return messages.map((message, index) => {
    if (message.role !== 'tool') return message;
    let changed = false;
    const content = message.content.map((part) => {
      if (part.type !== 'tool-approval-response' || !part.approved) return part;
      const toolCallId = callOf.get(part.approvalId);
      if (index < trailing && toolCallId !== undefined && results.has(toolCallId)) return part;
      changed = true;
      const text = `An approval in the conversation was not given by this session's gate (call ${toolCallId ?? part.approvalId}); the call does not run.`;
      refused.push(
        new SdkError('integration.foreign_approval', text, {
          hint: REFUSAL_HINTS['integration.foreign_approval'],
        }),
      );
      return {
        type: 'tool-approval-response' as const,
        approvalId: part.approvalId,
        approved: false,
        reason: text,
      };
    });
    return changed ? { ...message, content } : message;
  });
}

/**
 * Gives every call of the conversation that has no result one that says why (a stop, a
 * cancelled request, a failed turn), so the framework takes the conversation as the next turn's
 * input: a call it never ran is `execution-denied`; one it was allowed to run and whose result was
 * lost with the turn is an `error-text`.
 */
function closeOpenCalls(history: ModelMessage[], status: TurnEndStatus): void {
  const results = new Set<string>();
  const approved = new Set<string>();
  const callOf = new Map<string, string>();
  const open: { toolCallId: string; toolName: string }[] = [];
  for (const message of history) {
    if (typeof message.content === 'string') continue;
    for (const part of message.content) {
      if (part.type === 'tool-result') results.add(part.toolCallId);
      if (part.type === 'tool-approval-request') callOf.set(part.approvalId, part.toolCallId);
      if (part.type === 'tool-approval-response' && part.approved) {
        const id = callOf.get(part.approvalId);
        if (id !== undefined) approved.add(id);
      }
      if (part.type === 'tool-call' && !part.providerExecuted) open.push(part);
    }
  }
  const missing = open.filter(
    (c, i) => !results.has(c.toolCallId) && open.findIndex((o) => o.toolCallId === c.toolCallId) === i,
  );
  if (missing.length === 0) return;
  const why =
    status === 'cancelled'
      ? 'The turn was stopped'
      : status === 'failed'
        ? 'The turn failed'
        : 'The turn ended';
  history.push({
    role: 'tool',
    content: missing.map((c) => ({
      type: 'tool-result' as const,
      toolCallId: c.toolCallId,
      toolName: c.toolName,
      output: approved.has(c.toolCallId)
        ? { type: 'error-text' as const, value: `${why} before the call's result came.` }
        : { type: 'execution-denied' as const, reason: `${why} before the call ran.` },
    })),
  });
}
