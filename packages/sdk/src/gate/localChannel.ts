import type { Answering } from './answering.js';
import type { RespondResult } from './respondResult.js';
import { refuse } from './respondResult.js';

/** An answer from the local program: a terminal prompt, a host UI (docs/permissions.md, "How the gate is built"). */
export interface LocalAnswer {
  readonly callId: string;
  readonly optionId: string;
  readonly updatedInput?: Record<string, unknown>;
}

/**
 * The local channel: the host's own answer, always accepted (it needs no remote permission). The
 * decision is recorded in the stream as the user's `permission-response` with `via: 'local'`.
 */
export function answerLocally(answering: Answering, input: LocalAnswer): RespondResult {
  if (typeof input !== 'object' || input === null)
    return refuse('permissions.invalid_payload', 'The answer must be an object.');
  return answering.apply({
    callId: input.callId,
    optionId: input.optionId,
    via: 'local',
    ...(input.updatedInput !== undefined ? { updatedInput: input.updatedInput } : {}),
  });
}
