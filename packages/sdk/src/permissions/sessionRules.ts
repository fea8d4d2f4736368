import type { SdkError } from '../errors.js';
import { ledgerOf, type LedgerMessage } from '../stream/permissionLedger.js';
import { ok, type Result } from '../result.js';
import { isPermissionOptionKind, type PermissionOptionKind } from './options.js';
import { formatRule, parseRule, type RuleErrorCode } from './rules.js';
import { MAX_GRAMMAR_LINE_LENGTH } from './bashGrammar.js';
import { firstStringArg, stripBlanks } from './ruleMatch.js';
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
 * - Bash: `Bash(<exact command>)`, without the surrounding spaces, tabs and newlines — the same
 *   rule today's app sends in `allowTools`. A command ending in `:*` has no exact rule (the text
 *   would read as a prefix rule), and neither has one with control characters or Unicode spaces
 *   (no rule may match such a line), so they get none.
 * - Another shell tool (kind `execute`, e.g. Codex's `CodexBash`): none, since a tool-wide grant
 *   would allow every command.
 * - Any other tool: the tool name alone, so every later call of the tool is covered whatever its
 *   arguments (docs/permissions-requirements.md, scenario 3: allow-always on `WebFetch` grants `WebFetch`).
 */
export function ruleForCall(toolName: string, args: unknown): string | undefined {
  const canonical = canonicalToolName(toolName);
  if (canonical === 'Bash') {
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
  /** The arguments the user edited; an answer that edits them grants no rule. */
  readonly updatedInput?: unknown;
  /** Id of the `permission-response` message that carried the answer. */
  readonly grantedBy?: string;
  /** Unix ms of the answer. */
  readonly at?: number;
}

/**
 * A v2 message, typed only as far as the rebuild needs it (`docs/protocol.md`:
 * `permission-request` from the agent, `permission-response` from the user, `tool-call-end`, the
 * agent's settled note). Other messages are skipped. `requestId` is honoured when both the request
 * and the answer carry one (docs/permissions-requirements.md R2).
 */
export type PermissionMessageLike = LedgerMessage;

/**
 * The session's granted rules: added from `*-always` answers, listed, revoked, and rebuilt from the
 * stream after a restart (docs/permissions-requirements.md R6.1, R6.5, scenario 13). A runtime reset does not clear it;
 * only session end or {@link SessionRuleStore.revokeRule} removes a rule.
 */
export class SessionRuleStore {
  readonly #rules = new Map<string, SessionRule>();

  /**
   * Records the rule an `allow-always` / `reject-always` answer grants, and returns it. Other
   * kinds, answers that edited the arguments, and calls for which no exact rule exists
   * ({@link ruleForCall}) grant nothing.
   */
  addFromAnswer(answer: PermissionAnswer): SessionRule | undefined {
    const behavior = sessionBehaviorOf(answer.kind);
    if (behavior === undefined || answer.updatedInput !== undefined) return undefined;
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
   * Replaces the rules with those granted in `messages`, read in order by the one arbitration the
   * live gate follows (`PermissionLedger`): a request's decision is the agent's own record of
   * the answer it applied (a user `permission-response` with `via`), the first one after the
   * request and before it closed; answers without `via` are inputs and grant nothing. Revocations
   * are not in the v2 message set, so whoever records them re-applies them with
   * {@link SessionRuleStore.revokeRule} after the rebuild.
   */
  rebuildFromMessages(messages: Iterable<PermissionMessageLike>): readonly SessionRule[] {
    this.#rules.clear();
    // In the order the answers were recorded, as the live gate granted them.
    const answered = ledgerOf(messages).entries.filter((e) => e.answer !== undefined);
    answered.sort((a, b) => a.answerIndex! - b.answerIndex!);
    for (const entry of answered) {
      const { request, answer } = entry;
      if (!answer || typeof request.toolName !== 'string') continue;
      const option = request.options?.find((o) => o.id === answer.optionId);
      if (!option || !isPermissionOptionKind(option.kind)) continue;
      this.addFromAnswer({
        toolName: request.toolName,
        args: request.args,
        kind: option.kind,
        ...(answer.updatedInput !== undefined ? { updatedInput: answer.updatedInput } : {}),
        ...(answer.id !== undefined ? { grantedBy: answer.id } : {}),
        ...(answer.time !== undefined ? { at: answer.time } : {}),
      });
    }
    return this.listRules();
  }
}
