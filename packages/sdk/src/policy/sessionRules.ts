import type { SdkError } from '../errors.js';
import { ok, type Result } from '../result.js';
import type { PermissionOptionKind } from './options.js';
import { toolNameProblem } from '../protocol/toolName.js';
import { MAX_GRAMMAR_LINE_LENGTH } from './bashGrammar.js';
import { canonicalArgs } from './callArgs.js';
import { formatRule, MAX_RULE_LENGTH, parseRule, type RuleErrorCode } from './rules.js';
import { firstStringArg, stripBlanks } from './ruleMatch.js';
import { canonicalToolName, KNOWN_TOOL_KINDS, SEEN_KINDS, toolKindsOf } from './toolKinds.js';

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
 * The rule an `allow-always` answer to this call grants, or `undefined` when none can be stated
 * exactly (then the answer counts once only). It never covers more than the user saw
 * (docs/permissions-policy.md, "Session rules"):
 *
 * - Bash: `Bash(<exact command>)`, without the surrounding spaces, tabs and newlines — the same
 *   rule today's app sends in `allowTools`. A command ending in `:*` has no exact rule (the text
 *   would read as a prefix rule), and neither has one with control characters or Unicode spaces
 *   (no rule may match such a line), so they get none.
 * - A known tool whose every kind is one the user saw ({@link SEEN_KINDS}: read, search, think;
 *   `Read`, `Grep`, `TodoWrite`, …): the tool name alone, every later call of the tool. An
 *   explicit `toolKind` from the adapter that adds another kind (`Read` of kind `execute`) makes
 *   it the next case.
 * - Every other tool (kind `execute`, `edit`, `fetch`, `other`, unknown names such as
 *   `mcp__shell__run_command`, `terminal`, an ACP call named by its kind): the exact call,
 *   `Tool{<canonical JSON of the arguments>}`, which matches only a call of that tool with equal
 *   arguments; none when the arguments have no such text within {@link MAX_RULE_LENGTH}.
 * - A tool name that cannot be read exactly (`Bash `, see `toolNameProblem`): none.
 */
export function ruleForCall(toolName: string, args: unknown, toolKind?: string): string | undefined {
  if (toolNameProblem(toolName) !== undefined) return undefined;
  const canonical = canonicalToolName(toolName);
  if (canonical === 'Bash') return exactCommandRule(args);
  const seen =
    Object.hasOwn(KNOWN_TOOL_KINDS, canonical) &&
    toolKindsOf(canonical, toolKind).every((k) => SEEN_KINDS.includes(k));
  return seen ? wholeToolRule(canonical) : exactCallRule(canonical, args);
}

/**
 * The rule a `reject-always` answer to this call grants: a wider deny than the call is safe, so
 * the whole tool, except for tools that run commands (kind `execute`, Bash included), where a
 * tool-wide deny would refuse every later command: there, the exact call as in
 * {@link ruleForCall}. `undefined` for a tool name that cannot be read exactly.
 */
export function denyRuleForCall(toolName: string, args: unknown, toolKind?: string): string | undefined {
  if (toolNameProblem(toolName) !== undefined) return undefined;
  const canonical = canonicalToolName(toolName);
  if (canonical === 'Bash') return exactCommandRule(args);
  if (toolKindsOf(canonical, toolKind).includes('execute')) return exactCallRule(canonical, args);
  return wholeToolRule(canonical);
}

function exactCommandRule(args: unknown): string | undefined {
  const text = firstStringArg(args, ['command']);
  // Bounded before any rule text is built: a line longer than the grammar reads is granted once.
  if (text !== undefined && text.length > MAX_GRAMMAR_LINE_LENGTH) return undefined;
  const command = text === undefined ? undefined : stripBlanks(text);
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

function wholeToolRule(canonical: string): string | undefined {
  const parsed = parseRule(canonical);
  return parsed.ok && parsed.value.type === 'tool' && parsed.value.toolName === canonical
    ? formatRule(parsed.value)
    : undefined;
}

function exactCallRule(canonical: string, args: unknown): string | undefined {
  const json = canonicalArgs(args, MAX_RULE_LENGTH - canonical.length);
  if (json === undefined) return undefined;
  const parsed = parseRule(`${canonical}${json}`);
  return parsed.ok &&
    parsed.value.type === 'call' &&
    parsed.value.toolName === canonical &&
    parsed.value.args === json
    ? formatRule(parsed.value)
    : undefined;
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
  /** The adapter's kind for the call (`ToolCall.kind`), when known; it can only narrow the grant. */
  readonly toolKind?: string;
  readonly kind: PermissionOptionKind;
  /** The arguments the user edited; an answer that edits them grants no rule. */
  readonly updatedInput?: unknown;
  /** Id of the `permission-response` message that carried the answer. */
  readonly grantedBy?: string;
  /** Unix ms of the answer. */
  readonly at?: number;
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
   * kinds, answers that edited the arguments, and calls for which no rule can be stated
   * ({@link ruleForCall}, {@link denyRuleForCall}) grant nothing.
   */
  addFromAnswer(answer: PermissionAnswer): SessionRule | undefined {
    const behavior = sessionBehaviorOf(answer.kind);
    if (behavior === undefined || answer.updatedInput !== undefined) return undefined;
    const rule = (behavior === 'allow' ? ruleForCall : denyRuleForCall)(
      answer.toolName,
      answer.args,
      answer.toolKind,
    );
    if (rule === undefined) return undefined;
    const added = this.add(rule, behavior, { grantedBy: answer.grantedBy, createdAt: answer.at });
    return added.ok ? added.value : undefined;
  }

  /**
   * Adds a rule by its text (for example a host action "always allow `npm test`"). The text is
   * validated and stored canonically; adding a rule that is already there returns the existing one.
   * Like every session grant, a whole-tool allow rule covers only calls of the kinds in
   * `SEEN_KINDS` (docs/permissions-policy.md, "Session rules"); a host that means more writes a
   * static allow rule.
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
}
