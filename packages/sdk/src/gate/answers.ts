import type { PermissionOptionKind } from '../policy/options.js';
import type { PermissionMode } from '../policy/modes.js';
import type { PermissionResponseMessage } from '../protocol/sessionMessage.js';
import type { PermissionDecision } from '../stream/plugins.js';
import type { AnswerResult } from '../stream/answerResult.js';
import { refuse } from './refuse.js';

/** Where an answer came from. */
export type AnswerVia = 'stream' | 'rpc' | 'local';

/** An answer in one shape, whatever channel and body format it came in. */
export interface Answer {
  readonly callId: string;
  readonly optionId: string;
  readonly via: AnswerVia;
  /** The id of the `permission-request` record the answer names, if it names one. */
  readonly requestId?: string;
  readonly updatedInput?: Readonly<Record<string, unknown>>;
  /** A mode switch that comes with the answer (today's app), validated against the ceiling by the gate. */
  readonly mode?: PermissionMode;
  /** Stop the turn as well. */
  readonly interrupt?: boolean;
  /** Feedback for the model. */
  readonly message?: string;
  /**
   * Set when the answer is the user's own `permission-response` record in the stream: the gate
   * confirms it with a sealed note instead of appending a second response.
   */
  readonly record?: { readonly id: string; readonly time: number };
  /** The kind the legacy mapping chose (checked again against the request by the gate). */
  readonly kind?: PermissionOptionKind;
}

/**
 * What the gate's arbiter is handed for a request (docs/permissions.md, "One arbitration"): a
 * person's answer, judged before it counts; or the gate's own decision (a rule or the mode, a
 * cancellation, a deadline, the request never stored), which always counts; or a decision the
 * stream already holds from the gate's sealed records, read back after a restart.
 */
export type GateAnswer =
  | { readonly by: 'person'; readonly answer: Answer }
  | {
      readonly by: 'gate';
      readonly decision: PermissionDecision;
      /** Set when the request was never stored: its waiter fails with this instead. */
      readonly unstored?: unknown;
      /** The text of the settled note that records a decision by policy in the stream (after a grant or a mode change). */
      readonly note?: string;
    }
  | { readonly by: 'record'; readonly decision: PermissionDecision; readonly recordId?: string };

/** An answer from the local program: a terminal prompt, a host UI (docs/permissions.md, "How the gate is built"). */
export interface LocalAnswer {
  readonly callId: string;
  readonly optionId: string;
  readonly updatedInput?: Record<string, unknown>;
}

/**
 * The local program's answer: always from the person at this machine, so it needs no remote
 * permission and need not name its request.
 */
export function answerFromLocal(input: LocalAnswer): Answer | AnswerResult<'gate'> {
  if (typeof input !== 'object' || input === null)
    return refuse('permissions.invalid_payload', 'The answer must be an object.');
  return {
    callId: input.callId,
    optionId: input.optionId,
    via: 'local',
    ...(input.updatedInput !== undefined ? { updatedInput: input.updatedInput } : {}),
  };
}

/**
 * A user-role `permission-response` another client appended: a person's answer,
 * whatever its `via` says (only the gate's own sealed records are the agent's, docs/permissions.md
 * "The agent's own records"). The gate confirms it with a sealed note instead of appending a
 * second response.
 */
export function answerFromRecord(message: PermissionResponseMessage): Answer {
  return {
    callId: message.callId,
    optionId: message.optionId,
    via: 'stream',
    ...(message.requestId !== undefined ? { requestId: message.requestId } : {}),
    ...(message.updatedInput !== undefined ? { updatedInput: message.updatedInput } : {}),
    record: { id: message.id, time: message.time },
  };
}
