import type { SdkError } from '../errors.js';
import { ok, type Result } from '../result.js';
import { isPermissionOptionKind, type PermissionOptionKind } from './options.js';
import { formatRule, parseRule, type RuleErrorCode } from './rules.js';
import { firstStringArg } from './ruleMatch.js';
import { canonicalToolName, classifyTool } from './toolKinds.js';

/** Whether a session rule lets calls run or refuses them. */
export type SessionRuleBehavior = 'allow' | 'deny';

/**
 * A rule granted during the session by an `allow-always` or `reject-always` answer (docs/permissions-requirements.md R6).
 * The id is `<behavior>:<rule>`, so the same grant rebuilt from the stream has the same id and
 * granting it twice changes nothing.
 */
export interface SessionRule {
  readonly id: string;
  readonly behavior: SessionRuleBehavior;
  /** Canonical rule text, e.g. `Bash(npm test)` or `WebFetch`. */
  readonly rule: string;
  /** Id of the `permission-response` message that granted it, when known. */
  readonly grantedBy?: string;
  /** Unix ms of the grant, when known. */
  readonly createdAt?: number;
}

/**
 * The rule an `*-always` answer to this call grants, or `undefined` when none can be stated
 * exactly (then the answer counts once only).
 *
 * - Bash: `Bash(<exact command>)`, the command trimmed — the same rule today's app sends in
 *   `allowTools`. A command ending in `:*` has no exact rule (the text would read as a prefix
 *   rule), so it gets none.
 * - Another shell tool (kind `execute`, e.g. Codex's `CodexBash`): none, since a tool-wide grant
 *   would allow every command.
 * - Any other tool: the tool name alone, so every later call of the tool is covered whatever its
 *   arguments (docs/permissions-requirements.md, scenario 3: allow-always on `WebFetch` grants `WebFetch`).
 */
export function ruleForCall(toolName: string, args: unknown): string | undefined {
  const canonical = canonicalToolName(toolName);
  if (canonical === 'Bash') {
    const command = firstStringArg(args, ['command'])?.trim();
    if (command === undefined || command.length === 0) return undefined;
    const parsed = parseRule(`Bash(${command})`);
    if (
      !parsed.ok ||
      parsed.value.type !== 'command' ||
      parsed.value.prefix ||
      parsed.value.command !== command
    ) {
      return undefined;
    }
    return formatRule(parsed.value);
  }
  // A tool-wide grant for another shell tool (Codex's `CodexBash`) would allow every command.
  if (classifyTool(canonical) === 'execute') return undefined;
  const parsed = parseRule(canonical);
  return parsed.ok && parsed.value.type === 'tool' ? formatRule(parsed.value) : undefined;
}

/** The behavior an option kind grants for the rest of the session, if any. */
export function sessionBehaviorOf(kind: PermissionOptionKind): SessionRuleBehavior | undefined {
  if (kind === 'allow-always') return 'allow';
  if (kind === 'reject-always') return 'deny';
  return undefined;
}

/** An answer to a permission request, as {@link SessionRuleStore.addFromAnswer} needs it. */
export interface PermissionAnswer {
  readonly toolName: string;
  readonly args: unknown;
  readonly kind: PermissionOptionKind;
  /** Id of the `permission-response` message that carried the answer. */
  readonly grantedBy?: string;
  /** Unix ms of the answer. */
  readonly at?: number;
}

/**
 * A v2 message, typed only as far as the rebuild needs it (`docs/protocol.md`:
 * `permission-request` from the agent, `permission-response` from the user). Other messages are
 * skipped. `requestId` is honoured when present (docs/permissions-requirements.md R2), `callId` otherwise.
 */
export interface PermissionMessageLike {
  readonly type: string;
  readonly role: string;
  readonly id?: string;
  readonly time?: number;
  readonly callId?: string;
  readonly requestId?: string;
  readonly toolName?: string;
  readonly args?: unknown;
  readonly options?: readonly { readonly id: string; readonly kind: string }[];
  readonly optionId?: string;
  /** Set on the record the runtime appended for the answer it applied (RPC or local). */
  readonly via?: string;
}

/**
 * The session's granted rules: added from `*-always` answers, listed, revoked, and rebuilt from the
 * stream after a restart (docs/permissions-requirements.md R6.1, R6.5, scenario 13). A runtime reset does not clear it;
 * only session end or {@link SessionRuleStore.revokeRule} removes a rule.
 */
export class SessionRuleStore {
  readonly #rules = new Map<string, SessionRule>();

  /**
   * Records the rule an `allow-always` / `reject-always` answer grants, and returns it. Other
   * kinds, and calls for which no exact rule exists ({@link ruleForCall}), grant nothing.
   */
  addFromAnswer(answer: PermissionAnswer): SessionRule | undefined {
    const behavior = sessionBehaviorOf(answer.kind);
    if (behavior === undefined) return undefined;
    const rule = ruleForCall(answer.toolName, answer.args);
    if (rule === undefined) return undefined;
    const added = this.add(rule, behavior, { grantedBy: answer.grantedBy, createdAt: answer.at });
    return added.ok ? added.value : undefined;
  }

  /**
   * Adds a rule by its text (for example a host action "always allow `npm test`"). The text is
   * validated and stored canonically; adding a rule that is already there returns the existing one.
   */
  add(
    rule: string,
    behavior: SessionRuleBehavior,
    meta: { grantedBy?: string | undefined; createdAt?: number | undefined } = {},
  ): Result<SessionRule, SdkError<RuleErrorCode>> {
    const parsed = parseRule(rule);
    if (!parsed.ok) return parsed;
    const text = formatRule(parsed.value);
    const id = `${behavior}:${text}`;
    const existing = this.#rules.get(id);
    if (existing) return ok(existing);
    const created: SessionRule = Object.freeze({
      id,
      behavior,
      rule: text,
      ...(meta.grantedBy !== undefined ? { grantedBy: meta.grantedBy } : {}),
      ...(meta.createdAt !== undefined ? { createdAt: meta.createdAt } : {}),
    });
    this.#rules.set(id, created);
    return ok(created);
  }

  /** The rules in the order they were granted. */
  listRules(): readonly SessionRule[] {
    return [...this.#rules.values()];
  }

  /** Removes a rule; false when there was none with this id. */
  revokeRule(id: string): boolean {
    return this.#rules.delete(id);
  }

  /**
   * Replaces the rules with those granted in `messages`, read in order. A response counts when it
   * is user-authored, answers a request that is still open (by `requestId`, else the latest
   * request for its `callId`), and names one of that request's options; the first such response
   * settles the request. Revocations are not in the v2 message set, so whoever records them
   * re-applies them with {@link SessionRuleStore.revokeRule} after the rebuild.
   */
  rebuildFromMessages(messages: Iterable<PermissionMessageLike>): readonly SessionRule[] {
    this.#rules.clear();
    for (const grant of grantsFromMessages(messages)) {
      this.addFromAnswer(grant);
    }
    return this.listRules();
  }
}

interface OpenRequest {
  readonly message: PermissionMessageLike;
  settled: boolean;
  /** Whether the settling answer is the runtime's own record (`via`), which nothing overrides. */
  authoritative: boolean;
  /** Index in `grants` of the settling answer's grant, if it granted anything. */
  grant?: number;
}

function grantsFromMessages(messages: Iterable<PermissionMessageLike>): PermissionAnswer[] {
  const byCall = new Map<string, OpenRequest>();
  const byRequest = new Map<string, OpenRequest>();
  const grants: Array<PermissionAnswer | undefined> = [];
  for (const message of messages) {
    if (typeof message !== 'object' || message === null) continue;
    if (message.type === 'permission-request' && message.role === 'agent') {
      if (typeof message.callId !== 'string' || typeof message.toolName !== 'string') continue;
      if (!Array.isArray(message.options)) continue;
      const open: OpenRequest = { message, settled: false, authoritative: false };
      byCall.set(message.callId, open);
      if (typeof message.requestId === 'string') byRequest.set(message.requestId, open);
      continue;
    }
    if (message.type !== 'permission-response' || message.role !== 'user') continue;
    if (typeof message.callId !== 'string' || typeof message.optionId !== 'string') continue;
    const open =
      typeof message.requestId === 'string' ? byRequest.get(message.requestId) : byCall.get(message.callId);
    if (!open || open.message.callId !== message.callId) continue;
    // A settled request is only re-settled by the runtime's own record of the answer it applied.
    const viaRuntime = typeof message.via === 'string';
    if (open.settled && (open.authoritative || !viaRuntime)) continue;
    const option = open.message.options?.find((o) => o.id === message.optionId);
    if (!option || !isPermissionOptionKind(option.kind)) continue;
    if (open.grant !== undefined) grants[open.grant] = undefined;
    open.settled = true;
    open.authoritative = viaRuntime;
    open.grant = grants.length;
    grants.push({
      toolName: open.message.toolName!,
      args: open.message.args,
      kind: option.kind,
      ...(message.id !== undefined ? { grantedBy: message.id } : {}),
      ...(message.time !== undefined ? { at: message.time } : {}),
    });
  }
  return grants.filter((g): g is PermissionAnswer => g !== undefined);
}
