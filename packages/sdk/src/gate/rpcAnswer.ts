import { err, ok, type Result } from '../result.js';
import type { Answer } from './answers.js';
import type { RequestItem } from './request.js';
import type { AnswerErrorCode, AnswerResult } from '../stream/answerResult.js';
import { refuse } from './refuse.js';
import { isSdkError } from '../errors.js';
import { frozenArgs } from '../stream/frozenArgs.js';
import { parseMode, type PermissionMode } from '../policy/modes.js';
import { findOptionByKind, type PermissionOption, type PermissionOptionKind } from '../policy/options.js';
import { formatRule, parseRule } from '../policy/rules.js';
import { ruleForCall } from '../policy/sessionRules.js';

/**
 * Typed rejections of a `permission` RPC body (docs/permissions-requirements.md R11; the codes a gate replies with). The
 * request stays pending after any of them.
 */
export type PermissionRpcErrorCode = Extract<
  AnswerErrorCode,
  | 'permissions.invalid_payload'
  | 'permissions.invalid_option'
  | 'permissions.mode_not_allowed'
  | 'permissions.rule_mismatch'
>;

/** A rejected body: the code, a message for the client, and the offending fields. */
export interface PermissionRpcError {
  readonly code: PermissionRpcErrorCode;
  readonly message: string;
  readonly issues?: readonly string[];
}

/** The v2 body of the `permission` RPC (docs/architecture.md, "Permissions"): the same fields as a `permission-response`. */
export interface V2PermissionBody {
  readonly callId: string;
  readonly optionId: string;
  /** Optional; when present it picks the request among re-raised ones (docs/permissions-requirements.md R2). */
  readonly requestId?: string;
  /** Optional edited arguments, merged over the request's; checked like the legacy body's (docs/permissions.md). */
  readonly updatedInput?: Readonly<Record<string, unknown>>;
}

/** Decision values today's Base/Codex handlers read (`docs/wire.md` §7.2). */
export type LegacyDecision = 'approved' | 'approved_for_session' | 'denied' | 'abort';

/** The body today's Happy app sends (`docs/wire.md` §7.2, docs/permissions-requirements.md §1.4), after shape checks. */
export interface LegacyPermissionBody {
  readonly id: string;
  readonly approved: boolean;
  readonly decision?: LegacyDecision;
  readonly mode?: string;
  readonly allowTools?: readonly string[];
  readonly updatedInput?: Readonly<Record<string, unknown>>;
  readonly reason?: string;
}

/** A `permission` RPC body, told apart by its fields. */
export type PermissionRpcBody =
  | { readonly format: 'v2'; readonly body: V2PermissionBody }
  | { readonly format: 'legacy'; readonly body: LegacyPermissionBody };

/** What the legacy mapping needs to know about the pending request it answers. */
export interface LegacyPendingRequest {
  readonly toolName: string;
  readonly args: unknown;
  /** The adapter's kind for the call, as {@link ruleForCall} reads it. */
  readonly toolKind?: string;
  readonly options: readonly PermissionOption[];
}

/** A legacy body translated into an answer to the pending request, with its side effects. */
export interface LegacyAnswer {
  /** The chosen option, picked by kind, never by name or id. */
  readonly optionId: string;
  readonly kind: PermissionOptionKind;
  /** Stop the turn after denying: only `decision: 'abort'` (the person's stop), never a plain "No". */
  readonly interrupt: boolean;
  /** Mode to switch to, validated; the gate still checks it against the host's ceiling. */
  readonly mode?: PermissionMode;
  /** The session rule an `allow-always` answer grants. */
  readonly rule?: string;
  /** Fields to merge shallowly over the request's args (AskUserQuestion answers); the gate validates them. */
  readonly updatedInput?: Readonly<Record<string, unknown>>;
  /** Text for the model (`reason`). */
  readonly message?: string;
  /** True when the user asked for allow-always but only allow-once could be given. */
  readonly downgraded?: boolean;
}

const DECISIONS: readonly LegacyDecision[] = ['approved', 'approved_for_session', 'denied', 'abort'];
const MAX_ID = 512;
const MAX_TEXT = 10_000;
const MAX_ALLOW_TOOLS = 16;

/**
 * Looks up the open request of a call, or says it is resolved or unknown. The legacy body's
 * `id` may also be the id of the request record (what the agentState mirror keys requests by).
 */
export type PendingLookup = (id: string) => RequestItem | AnswerResult<'gate'>;

const MAX_BODY_CHARS = 64 * 1024;

/**
 * Reads a `permission` RPC body: the v2 body `{ callId, optionId }`, or the legacy body of today's
 * app `{ id, approved, decision?, mode?, allowTools?, updatedInput?, reason? }` mapped by kind with
 * the table of `mapLegacyAnswer` (docs/permissions-policy.md). Contradictory, oversize or
 * ill-typed bodies are `permissions.invalid_payload`.
 */
export function answerFromRpcBody(body: unknown, lookup: PendingLookup): Answer | AnswerResult<'gate'> {
  let size: number;
  let copy: unknown;
  try {
    // The bounded walk first: a body wider or deeper than a record holds is refused before
    // anything lists, copies or writes all of it (docs/permissions.md, "What a request does").
    copy = frozenArgs({ body: body ?? null }, 'body').body;
    size = JSON.stringify(copy).length;
  } catch (error) {
    if (isSdkError(error, 'stream.too_large'))
      return refuse('permissions.invalid_payload', `The body is larger than ${MAX_BODY_CHARS} characters.`);
    return refuse('permissions.invalid_payload', 'The body is not JSON.');
  }
  if (size > MAX_BODY_CHARS)
    return refuse('permissions.invalid_payload', `The body is larger than ${MAX_BODY_CHARS} characters.`);
  const parsed = parsePermissionRpcBody(copy);
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
    toolName: pending.toolName,
    args: pending.args,
    ...(pending.kind !== undefined ? { toolKind: pending.kind } : {}),
    options: pending.options,
  });
  if (!mapped.ok) return refuse(mapped.error.code, mapped.error.message, mapped.error.issues);
  const a = mapped.value;
  return {
    callId: pending.callId,
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

/**
 * Tells a v2 body (`callId`, `optionId`) from a legacy one (`id`, `approved`) and checks it. A body
 * with fields of both is refused as ambiguous.
 */
export function parsePermissionRpcBody(body: unknown): Result<PermissionRpcBody, PermissionRpcError> {
  if (!isPlainObject(body)) return invalid('the body must be an object');
  const v2 = 'callId' in body || 'optionId' in body;
  const legacy = 'id' in body || 'approved' in body;
  if (v2 && legacy)
    return invalid('the body mixes v2 fields (callId, optionId) with legacy ones (id, approved)');
  if (v2) {
    const parsed = parseV2PermissionBody(body);
    return parsed.ok ? ok({ format: 'v2', body: parsed.value }) : parsed;
  }
  const parsed = parseLegacyPermissionBody(body);
  return parsed.ok ? ok({ format: 'legacy', body: parsed.value }) : parsed;
}

/** Checks a v2 body `{ callId, optionId, requestId?, updatedInput? }`. Unknown extra fields are ignored. */
export function parseV2PermissionBody(body: unknown): Result<V2PermissionBody, PermissionRpcError> {
  if (!isPlainObject(body)) return invalid('the body must be an object');
  const issues: string[] = [];
  if (!isId(body.callId)) issues.push('callId must be a non-empty string');
  if (!isId(body.optionId)) issues.push('optionId must be a non-empty string');
  if (body.requestId !== undefined && !isId(body.requestId))
    issues.push('requestId must be a non-empty string');
  if (body.updatedInput !== undefined && !isPlainObject(body.updatedInput))
    issues.push('updatedInput must be an object');
  if (issues.length > 0) return invalid('the v2 permission body is malformed', issues);
  return ok({
    callId: body.callId as string,
    optionId: body.optionId as string,
    ...(body.requestId !== undefined ? { requestId: body.requestId as string } : {}),
    ...(body.updatedInput !== undefined
      ? { updatedInput: body.updatedInput as Record<string, unknown> }
      : {}),
  });
}

/**
 * Checks the shape of a legacy body and refuses contradictions, which today's handlers coerced
 * (docs/permissions-requirements.md E16). Contradictory, hence `permissions.invalid_payload`:
 * - `approved: true` with `decision: 'denied' | 'abort'`;
 * - `approved: false` with `decision: 'approved' | 'approved_for_session'`;
 * - `approved: false` with `allowTools`, `mode` or `updatedInput` (a refusal grants nothing);
 * - `decision: 'approved'` (once) with non-empty `allowTools` (always).
 */
export function parseLegacyPermissionBody(body: unknown): Result<LegacyPermissionBody, PermissionRpcError> {
  if (!isPlainObject(body)) return invalid('the body must be an object');
  const issues: string[] = [];
  if (!isId(body.id)) issues.push('id must be a non-empty string');
  if (typeof body.approved !== 'boolean') issues.push('approved must be true or false');
  if (body.decision !== undefined && !(DECISIONS as readonly unknown[]).includes(body.decision)) {
    issues.push(`decision must be one of ${DECISIONS.join(', ')}`);
  }
  if (body.mode !== undefined && typeof body.mode !== 'string') issues.push('mode must be a string');
  if (body.allowTools !== undefined) {
    if (
      !Array.isArray(body.allowTools) ||
      !body.allowTools.every((t) => typeof t === 'string' && t.length <= MAX_TEXT)
    ) {
      issues.push('allowTools must be an array of strings');
    } else if (body.allowTools.length > MAX_ALLOW_TOOLS) {
      issues.push(`allowTools may hold at most ${MAX_ALLOW_TOOLS} rules`);
    } else {
      for (const t of body.allowTools as string[])
        if (!parseRule(t).ok) issues.push(`allowTools has an invalid rule "${t}"`);
    }
  }
  if (body.updatedInput !== undefined && !isPlainObject(body.updatedInput))
    issues.push('updatedInput must be an object');
  if (body.reason !== undefined && (typeof body.reason !== 'string' || body.reason.length > MAX_TEXT)) {
    issues.push('reason must be a string');
  }
  if (issues.length > 0) return invalid('the legacy permission body is malformed', issues);

  const b = body as unknown as LegacyPermissionBody;
  const grants = (b.allowTools?.length ?? 0) > 0;
  if (b.approved && (b.decision === 'denied' || b.decision === 'abort')) {
    issues.push(`approved: true contradicts decision: "${b.decision}"`);
  }
  if (!b.approved) {
    if (b.decision === 'approved' || b.decision === 'approved_for_session') {
      issues.push(`approved: false contradicts decision: "${b.decision}"`);
    }
    if (grants) issues.push('approved: false cannot grant allowTools');
    if (b.mode !== undefined) issues.push('approved: false cannot change the mode');
    if (b.updatedInput !== undefined) issues.push('approved: false cannot carry updatedInput');
  }
  if (b.decision === 'approved' && grants)
    issues.push('decision: "approved" (once) contradicts allowTools (always)');
  if (issues.length > 0) return invalid('the legacy permission body contradicts itself', issues);
  return ok(b);
}

/**
 * Translates a checked legacy body into an answer to the pending request, by this table
 * (docs/permissions-requirements.md R11 "legacy shim", explicit rather than coerced):
 *
 * | approved | decision | allowTools | answer kind | interrupt |
 * |---|---|---|---|---|
 * | true | — or `approved` | — | allow-once | no |
 * | true | `approved_for_session` | — or the request's rule | allow-always | no |
 * | true | — | the request's rule | allow-always | no |
 * | false | — or `denied` | — | reject-once | no |
 * | false | `abort` | — | reject-once | yes (stop the turn) |
 *
 * One turn-ending rule on every channel (docs/permissions.md, "How a turn ends after a denial"): a
 * denial is an answer and the turn goes on; only the person's stop (`decision: 'abort'`, or the
 * `abort` RPC) ends it. Today's app sends its "No" as `{ id, approved: false }`.
 *
 * - The option is the request's first option of that kind. allow-always falls back to allow-once
 *   when the request offers no allow-always option or no exact rule exists for the call
 *   (`downgraded: true`, no rule); allow-once never escalates, and a missing allow-once or
 *   reject-once option is `permissions.invalid_option`. reject-always is not expressible in the legacy body.
 * - `allowTools` must name exactly the rule the request grants ({@link ruleForCall}:
 *   `Bash(<exact command>)`, the tool name for a tool that only reads, the exact call
 *   `Tool{…}` otherwise), compared in canonical form, otherwise `permissions.rule_mismatch`: the app may not
 *   invent a broader rule than the one the runtime would grant (R5.5). Today's app sends
 *   `Bash(<command>)` for Bash, which matches; its tool name for an MCP tool does not.
 * - `mode` must be a known mode (`yolo` is read as `bypassPermissions`), otherwise
 *   `permissions.mode_not_allowed`; it is returned as a side effect together with the allow.
 * - `updatedInput` and `reason` are passed through as `updatedInput` and `message`.
 */
export function mapLegacyAnswer(
  body: LegacyPermissionBody,
  pending: LegacyPendingRequest,
): Result<LegacyAnswer, PermissionRpcError> {
  let mode: PermissionMode | undefined;
  if (body.mode !== undefined) {
    const parsed = parseMode(body.mode);
    if (!parsed.ok) return err({ code: 'permissions.mode_not_allowed', message: parsed.error.message });
    mode = parsed.value;
  }
  const extras = {
    ...(mode !== undefined ? { mode } : {}),
    ...(body.updatedInput !== undefined ? { updatedInput: body.updatedInput } : {}),
    ...(body.reason !== undefined ? { message: body.reason } : {}),
  };

  if (!body.approved) {
    const option = findOptionByKind(pending.options, 'reject-once');
    if (!option) return missingOption('reject-once');
    return ok({ optionId: option.id, kind: 'reject-once', interrupt: body.decision === 'abort', ...extras });
  }

  const wantsAlways = body.decision === 'approved_for_session' || (body.allowTools?.length ?? 0) > 0;
  if (wantsAlways) {
    const rule = ruleForCall(pending.toolName, pending.args, pending.toolKind);
    if (body.allowTools && body.allowTools.length > 0) {
      const proposed = new Set(body.allowTools.map((t) => canonical(t)));
      if (rule === undefined || proposed.size !== 1 || !proposed.has(rule)) {
        return err({
          code: 'permissions.rule_mismatch',
          message: `allowTools must name the rule this request grants${rule ? ` (${rule})` : ''}; it named ${[...proposed].join(', ')}.`,
        });
      }
    }
    const always = findOptionByKind(pending.options, 'allow-always');
    if (always && rule !== undefined) {
      return ok({ optionId: always.id, kind: 'allow-always', interrupt: false, rule, ...extras });
    }
    const once = findOptionByKind(pending.options, 'allow-once');
    if (!once) return missingOption('allow-once');
    return ok({ optionId: once.id, kind: 'allow-once', interrupt: false, downgraded: true, ...extras });
  }

  const once = findOptionByKind(pending.options, 'allow-once');
  if (!once) return missingOption('allow-once');
  return ok({ optionId: once.id, kind: 'allow-once', interrupt: false, ...extras });
}

function canonical(rule: string): string {
  const parsed = parseRule(rule);
  return parsed.ok ? formatRule(parsed.value) : rule;
}

function missingOption(kind: PermissionOptionKind): Result<never, PermissionRpcError> {
  return err({
    code: 'permissions.invalid_option',
    message: `The request offers no ${kind} option for this answer.`,
  });
}

function invalid(message: string, issues?: readonly string[]): Result<never, PermissionRpcError> {
  return err({ code: 'permissions.invalid_payload', message, ...(issues ? { issues } : {}) });
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

function isId(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= MAX_ID;
}
