import { isDeepStrictEqual } from 'node:util';
import type { Logger } from '../../logger.js';
import { silentLogger } from '../../logger.js';
import type { ToolCall } from '../../stream/builders.js';
import type { PermissionDecision, PermissionRequestOptions } from '../../stream/plugins.js';
import { registryOf } from './callRegistry.js';
import { argsOf, callFields } from './toolCalls.js';

/**
 * What Claude Code is answered (the SDK's `PermissionResult`, as far as this adapter gives it):
 * allow with the input to run, or deny with the text the model gets.
 */
export type ClaudePermissionResult =
  | { behavior: 'allow'; updatedInput: Record<string, unknown>; toolUseID?: string }
  | { behavior: 'deny'; message: string; interrupt?: boolean; toolUseID?: string };

/** What the SDK tells the approval hook besides the tool and its input (part of its options). */
export interface ClaudePermissionContext {
  /** Aborted when Claude Code no longer waits for the answer. */
  readonly signal: AbortSignal;
  /** The `tool_use` block's id. */
  readonly toolUseID: string;
  /** The subagent asking, if one is. */
  readonly agentID?: string;
}

/** The SDK's `canUseTool` option, as this adapter implements it. */
export type ClaudeCanUseTool = (
  toolName: string,
  input: Record<string, unknown>,
  options: ClaudePermissionContext,
) => Promise<ClaudePermissionResult>;

/** Options of {@link happyCanUseTool}. */
export interface HappyCanUseToolOptions {
  /** Deadline of each request; none by default, since a person may take hours. */
  readonly timeoutMs?: number;
  /** What a timeout resolves to: `deny` (default) or `cancel`. */
  readonly onTimeout?: 'deny' | 'cancel';
  /** Where the adapter says what it skipped or could not write; default silent. */
  readonly logger?: Logger;
}

/** What the approval hook needs of a session; `connect()`'s `Session` has it. */
export type ClaudeAgentSession = object;

/**
 * The Claude Agent SDK's `canUseTool`, answered by the session's permission gate
 * (docs/claude-agent.md, "Approvals"): each tool Claude Code asks about is the call `happyClaude()`
 * wrote for its `tool_use`, and its request goes through the gate exactly as `toolCall().run()`'s
 * does (the policy, modes and rules, the app's buttons, the stream and RPC answers, the local
 * channel, the turn's stop, the timeout). Claude Code gets the gate's answer: allow with the input
 * that was shown (or the person's edit of it), deny with the person's reason, or deny with
 * `interrupt` when the turn was stopped. Every failure answers deny: nothing runs unasked.
 *
 * `query({ prompt, options: { canUseTool: happyCanUseTool(session) } })`, mirrored by
 * `happyClaude(session, …)`.
 */
export function happyCanUseTool(
  session: ClaudeAgentSession,
  options: HappyCanUseToolOptions = {},
): ClaudeCanUseTool {
  const registry = registryOf(session);
  const logger = options.logger ?? silentLogger;
  const gateOptions: PermissionRequestOptions = {
    ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
    ...(options.onTimeout !== undefined ? { onTimeout: options.onTimeout } : {}),
  };
  return async (toolName, input, context) => {
    const toolUseID = context.toolUseID;
    if (!registry.mirrored) {
      logger.warn('canUseTool called with no happyClaude() mirroring this session', { toolName });
      return deny(
        toolUseID,
        'Refused: this tool call is not shown in the Happy session (no happyClaude() mirrors it).',
      );
    }
    const announced = await registry.callFor(toolUseID, context.signal);
    if (!announced) {
      if (context.signal.aborted) return deny(toolUseID, 'Cancelled: Claude Code stopped waiting.', true);
      return deny(toolUseID, 'Refused: this tool call was never shown in the Happy session.');
    }
    if (announced.ended) return deny(toolUseID, announced.error ?? 'The tool call has ended.', true);
    const call = askedCall(announced, toolName, input);
    registry.announce(toolUseID, call);
    let decision: PermissionDecision;
    try {
      decision = await call.requestPermission({ ...gateOptions, signal: context.signal });
    } catch (error) {
      // The request could not be stored (nobody can answer it) or the session has no gate.
      const text = error instanceof Error ? error.message : String(error);
      logger.warn('permission request failed', { toolName, error: text });
      if (!call.ended) call.end({ error: `permission request failed: ${text}` });
      return deny(toolUseID, `Refused: the permission request failed (${text}).`);
    }
    return answerFor(decision, call, toolUseID);
  };
}

/**
 * The call the person is asked about. It is the call written for the `tool_use`, unless what
 * Claude Code asks about differs from what the model sent (its name or input): then that call ends
 * (`superseded`) and a new one with what Claude Code will run takes its place, so that what is
 * shown, approved and run is one input (docs/permissions-policy.md, "What runs is what was shown").
 */
function askedCall(announced: ToolCall, toolName: string, input: Record<string, unknown>): ToolCall {
  const args = argsOf(input);
  if (announced.toolName === toolName && isDeepStrictEqual({ ...announced.args }, args)) return announced;
  announced.end({ error: 'superseded: Claude Code asks about other input than the model sent' });
  return announced.parent.toolCall(callFields(toolName, args));
}

function answerFor(decision: PermissionDecision, call: ToolCall, toolUseID: string): ClaudePermissionResult {
  if (decision.outcome === 'allow') {
    // What runs is what was shown, or the person's edit of it (validated and merged by the gate).
    const updatedInput = structuredClone({ ...(decision.updatedInput ?? call.args) }) as Record<
      string,
      unknown
    >;
    return { behavior: 'allow', updatedInput, toolUseID };
  }
  if (decision.outcome === 'cancelled') {
    return deny(toolUseID, decision.message ?? 'The user stopped this turn.', true);
  }
  return deny(toolUseID, decision.message ?? denialText(decision), decision.interrupt === true);
}

function denialText(decision: PermissionDecision): string {
  if (decision.source === 'rule') return `Denied by the rule ${decision.rule ?? 'of this session'}.`;
  if (decision.source === 'mode') return 'Denied by the permission mode of this session.';
  if (decision.source === 'timeout') return 'Denied: nobody answered in time.';
  return 'The user denied this tool call.';
}

function deny(toolUseID: string, message: string, interrupt = false): ClaudePermissionResult {
  return { behavior: 'deny', message, ...(interrupt ? { interrupt: true } : {}), toolUseID };
}
