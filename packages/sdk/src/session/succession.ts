import { safely } from '../errors.js';
import type { Logger } from '../logger.js';
import type { PermissionGate } from '../gate/gate.js';
import type { InterruptedRequest } from '../gate/interrupted.js';
import type { InterruptedQuestion, QuestionDesk } from '../questions/questionDesk.js';
import type { PermissionRequestMessage, SessionMessage } from '../protocol/sessionMessage.js';
import type { Scope, ToolCall } from '../stream/builders.js';
import type { SessionWriter } from '../stream/sessionWriter.js';
import { leftOpen } from '../stream/succession.js';

/** The reason a successor gives for each turn a dead process left open. */
export const RESTARTED = 'The agent restarted.';

/**
 * A tool call a dead process left unfinished, as its successor found it (docs/recovery.md,
 * "Interrupted calls"). The call itself is ended; `session.resume()` makes a new one.
 */
export interface InterruptedCall {
  readonly callId: string;
  readonly turn: string;
  readonly toolName: string;
  readonly title: string;
  readonly description: string;
  /** The arguments the call showed (as stored: redacted). */
  readonly args: Readonly<Record<string, unknown>>;
  readonly parentId?: string;
  readonly agentId?: string;
  /**
   * `asking`: its permission request was waiting; `running`: it had started (allowed, or asking
   * nothing) when the process died, so its tool may have done part of its work.
   */
  readonly state: 'asking' | 'running';
  /** The permission request that was waiting. */
  readonly request?: PermissionRequestMessage;
  /**
   * The first valid answer a person gave to that request while no agent was there, now recorded:
   * an allow lets `session.resume()` run the call once with exactly this input, without asking.
   */
  readonly answer?: InterruptedRequest['answer'];
}

/** What a dead process left, as `session.interrupted` shows it. */
export interface Interrupted {
  readonly calls: readonly InterruptedCall[];
  /** Its waiting questions: answered while no agent was there (with the result), or ended `stopped`. */
  readonly questions: readonly InterruptedQuestion[];
}

/** Nothing was left. */
export const NOTHING_INTERRUPTED: Interrupted = Object.freeze({ calls: [], questions: [] });

/**
 * Takes over what a dead process left in `history` (docs/recovery.md, "What a successor does"),
 * after the gate and the desk took up its requests and questions: the questions still waiting end
 * `stopped`, every call still open ends (`cancelled`), and every turn still open ends `cancelled`
 * with the reason {@link RESTARTED}. Returns what the host is told.
 */
export function takeOver(
  history: readonly SessionMessage[],
  parts: {
    readonly writer: SessionWriter;
    readonly gate: PermissionGate | undefined;
    readonly questions: QuestionDesk | undefined;
    readonly logger: Logger;
  },
): Interrupted {
  const { writer, logger } = parts;
  parts.questions?.endRecovered();
  const requests = new Map((parts.gate?.interrupted ?? []).map((r) => [r.request.callId, r]));
  const open = leftOpen(history);
  // A warning, where the gate's skipped writes are debug: the gate skips a write to a call that
  // has ended already, but an end skipped here leaves the dead process's call or turn open in the
  // stream, shown as running to whoever reads it.
  const append = (draft: Parameters<SessionWriter['append']>[0]): void => {
    safely(logger, 'successor write', () => writer.append(draft), 'warn');
  };
  for (const call of open.calls) {
    // The gate ended the calls whose request it took up.
    if (requests.has(call.callId)) continue;
    append({
      role: 'agent',
      type: 'tool-call-end',
      turn: call.turn,
      callId: call.callId,
      ...(call.parentId !== undefined ? { parentId: call.parentId } : {}),
      ...(call.agentId !== undefined ? { agentId: call.agentId } : {}),
      error: 'cancelled',
    });
  }
  for (const turn of open.turns)
    append({ role: 'agent', type: 'turn-end', turn, status: 'cancelled', reason: RESTARTED });
  const calls: InterruptedCall[] = open.calls.map((start) => {
    const taken = requests.get(start.callId);
    return {
      callId: start.callId,
      turn: start.turn,
      toolName: start.toolName,
      title: start.title,
      description: start.description,
      args: start.args,
      ...(start.parentId !== undefined ? { parentId: start.parentId } : {}),
      ...(start.agentId !== undefined ? { agentId: start.agentId } : {}),
      state: taken ? 'asking' : 'running',
      ...(taken ? { request: taken.request } : {}),
      ...(taken?.answer ? { answer: taken.answer } : {}),
    };
  });
  return { calls, questions: parts.questions?.interrupted ?? [] };
}

/** Options of `session.resume()`. */
export interface ResumeOptions {
  /**
   * The arguments to run with, when the host kept the real ones: the stream shows them redacted,
   * so a secret is a marker there. They must show exactly what the request showed, or the call asks.
   * Default: the arguments as the stream shows them.
   */
  readonly args?: Record<string, unknown>;
}

/**
 * A new call in `scope` that takes up `interrupted` (docs/recovery.md, "Resuming a call"): the same
 * tool and title, linked by `resumes`. It runs without asking only when a person allowed exactly
 * that request and input while no agent was there; otherwise it asks like any call.
 */
export function resumeIn(
  scope: Scope,
  interrupted: InterruptedCall,
  gate: PermissionGate | undefined,
  options: ResumeOptions = {},
): ToolCall {
  const call = scope.toolCall({
    toolName: interrupted.toolName,
    title: interrupted.title,
    description: interrupted.description,
    args: { ...(options.args ?? interrupted.args) },
    resumes: interrupted.callId,
  });
  if (gate && interrupted.request)
    gate.carryOver(call, {
      request: interrupted.request,
      ...(interrupted.answer ? { answer: interrupted.answer } : {}),
    });
  return call;
}
