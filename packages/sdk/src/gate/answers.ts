import type { PermissionOptionKind } from '../policy/options.js';
import type { PermissionMode } from '../policy/modes.js';
import { mapLegacyAnswer, parsePermissionRpcBody } from './legacyRpc.js';
import type { PendingRequest } from './pendingRequest.js';
import type { RespondResult } from './respondResult.js';
import { refuse } from './respondResult.js';

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
  readonly record?: { readonly id: string; readonly time: number; readonly seq: number };
  /** The kind the legacy mapping chose (checked again against the request by the gate). */
  readonly kind?: PermissionOptionKind;
}

/**
 * Looks up the pending request of a call, or says it is resolved or unknown. The legacy body's
 * `id` may also be the id of the request record (what the agentState mirror keys requests by).
 */
export type PendingLookup = (id: string) => PendingRequest | RespondResult;

const MAX_BODY_CHARS = 64 * 1024;

/**
 * Reads a `permission` RPC body: the v2 body `{ callId, optionId }`, or the legacy body of today's
 * app `{ id, approved, decision?, mode?, allowTools?, updatedInput?, reason? }` mapped by kind with
 * the table of `mapLegacyAnswer` (docs/permissions-policy.md). Contradictory, oversize or
 * ill-typed bodies are `permissions.invalid_payload`.
 */
export function answerFromRpcBody(body: unknown, lookup: PendingLookup): Answer | RespondResult {
  let size: number;
  try {
    size = JSON.stringify(body ?? null).length;
  } catch {
    return refuse('permissions.invalid_payload', 'The body is not JSON.');
  }
  if (size > MAX_BODY_CHARS)
    return refuse('permissions.invalid_payload', `The body is larger than ${MAX_BODY_CHARS} characters.`);
  const parsed = parsePermissionRpcBody(body);
  if (!parsed.ok) return refuse(parsed.error.code, parsed.error.message, parsed.error.issues);
  if (parsed.value.format === 'v2') {
    const v2 = parsed.value.body;
    return {
      callId: v2.callId,
      optionId: v2.optionId,
      via: 'rpc',
      ...(v2.requestId !== undefined ? { requestId: v2.requestId } : {}),
      ...(v2.updatedInput !== undefined ? { updatedInput: v2.updatedInput } : {}),
    };
  }
  const legacy = parsed.value.body;
  const pending = lookup(legacy.id);
  if ('status' in pending) return pending;
  const mapped = mapLegacyAnswer(legacy, {
    toolName: pending.call.toolName,
    args: pending.call.args,
    ...(pending.call.kind !== undefined ? { toolKind: pending.call.kind } : {}),
    options: pending.options,
  });
  if (!mapped.ok) return refuse(mapped.error.code, mapped.error.message, mapped.error.issues);
  const a = mapped.value;
  return {
    callId: pending.call.callId,
    ...(pending.recordId === legacy.id ? { requestId: legacy.id } : {}),
    optionId: a.optionId,
    via: 'rpc',
    kind: a.kind,
    interrupt: a.interrupt,
    ...(a.mode !== undefined ? { mode: a.mode } : {}),
    ...(a.updatedInput !== undefined ? { updatedInput: a.updatedInput } : {}),
    ...(a.message !== undefined ? { message: a.message } : {}),
  };
}
