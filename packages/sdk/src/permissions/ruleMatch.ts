import { matchPathPattern } from './pathGlob.js';
import { PATH_RULE_TOOLS, ruleCoversWholeTool, type ParsedRule } from './rules.js';

/**
 * How one rule relates to one call: it matches, it does not, or it cannot be told (a path that
 * escapes the workspace, a URL that does not parse, a command that does not parse). The policy
 * treats `unknown` as "ask" for deny and ask rules, and as "no match" for allow rules, so not
 * knowing never allows anything.
 */
export type RuleMatch = 'match' | 'no-match' | 'unknown';

/** What rule matching needs to know besides the call. */
export interface RuleMatchContext {
  /** Absolute posix path that relative path patterns are resolved against. */
  readonly workspaceRoot?: string;
}

/**
 * True when a `Bash(...)` rule matches one simple command, as written. `Bash(cmd)` needs the exact
 * text; `Bash(cmd:*)` needs `cmd` followed by the end or by whitespace, so `npm run test:*`
 * matches `npm run test` and `npm run test -- -u` but not `npm run testx`.
 */
export function matchCommandText(rule: ParsedRule & { type: 'command' }, text: string): boolean {
  const command = text.trim();
  if (!rule.prefix) return command === rule.command;
  if (!command.startsWith(rule.command)) return false;
  const next = command.charAt(rule.command.length);
  return next === '' || /\s/.test(next);
}

/**
 * Matches a rule that is not about shell commands against a call (the canonical tool name and its
 * arguments). `Bash(...)` rules are matched command by command by the policy, and say `no-match`
 * here.
 */
export function matchCallRule(
  rule: ParsedRule,
  toolName: string,
  args: unknown,
  context: RuleMatchContext = {},
): RuleMatch {
  if (rule.type === 'tool' || rule.type === 'mcp-server') {
    return ruleCoversWholeTool(rule, toolName) ? 'match' : 'no-match';
  }
  if (rule.toolName !== toolName || rule.type === 'command') return 'no-match';
  if (rule.type === 'path') {
    const filePath = firstStringArg(args, PATH_RULE_TOOLS[toolName] ?? []);
    if (filePath === undefined) return 'unknown';
    const matched = matchPathPattern(rule.pattern, filePath, context.workspaceRoot);
    return matched === undefined ? 'unknown' : matched ? 'match' : 'no-match';
  }
  const url = firstStringArg(args, ['url']);
  if (url === undefined) return 'unknown';
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return 'unknown';
  }
  return host === rule.domain ? 'match' : 'no-match';
}

/** The first of `keys` that `args` holds as a non-empty string. */
export function firstStringArg(args: unknown, keys: readonly string[]): string | undefined {
  if (typeof args !== 'object' || args === null) return undefined;
  for (const key of keys) {
    const value = (args as Record<string, unknown>)[key];
    if (typeof value === 'string' && value.length > 0) return value;
  }
  return undefined;
}
