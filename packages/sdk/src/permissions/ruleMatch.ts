import { readRuleCommand } from './bashGrammar.js';
import { stripBlanks } from './blanks.js';
import { matchPathPattern } from './pathGlob.js';
import { PATH_RULE_TOOLS, ruleCoversWholeTool, type ParsedRule } from './rules.js';
import type { ShellParser } from './shell.js';
import type { ShellWord } from './shellWords.js';

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

export { stripBlanks };

/**
 * True when a `Bash(...)` rule matches a command line's text. `Bash(cmd)` needs the exact text;
 * `Bash(cmd:*)` needs `cmd` followed by the end or a blank, so `npm run test:*` matches
 * `npm run test` and `npm run test -- -u` but not `npm run testx`. Only space, tab and newline are
 * blanks: `./x.sh\u00a0` is not `./x.sh`. Rules are matched on words ({@link matchWords}); the text
 * is compared for whole lines only.
 */
export function matchCommandText(rule: ParsedRule & { type: 'command' }, text: string): boolean {
  const command = stripBlanks(text);
  if (!rule.prefix) return command === rule.command;
  if (!command.startsWith(rule.command)) return false;
  const next = command.charAt(rule.command.length);
  return next === '' || next === ' ' || next === '\t' || next === '\n';
}

/**
 * True when a command's words match a rule's words: the same words for `Bash(cmd)`, the rule's
 * words first for `Bash(cmd:*)`. A word matches by its value after quote removal; a word bash
 * computes when it runs matches only the same computed word, written the same way.
 */
export function matchWords(
  rule: readonly ShellWord[],
  words: readonly ShellWord[],
  prefix: boolean,
): boolean {
  if (prefix ? words.length < rule.length : words.length !== rule.length) return false;
  return rule.every((r, i) => sameWord(r, words[i]!));
}

function sameWord(rule: ShellWord, word: ShellWord): boolean {
  return rule.value !== undefined
    ? word.value === rule.value
    : word.value === undefined && word.text === rule.text;
}

const ruleWordCache = new Map<string, readonly ShellWord[] | null>();
const RULE_WORD_CACHE_SIZE = 1_000;

/**
 * The words of a `Bash(...)` rule's command, or `undefined` when it is not one simple command
 * (`Bash(npm test && npm run build)` can only match a whole line).
 */
export function ruleWords(
  rule: ParsedRule & { type: 'command' },
  shell: ShellParser,
): readonly ShellWord[] | undefined {
  const cached = ruleWordCache.get(rule.command);
  if (cached !== undefined) return cached ?? undefined;
  const split = shell.split(rule.command);
  // A parse cancelled or failed for want of time says nothing about the rule: not cached.
  if (!split.ok && (split.reason === 'too_long' || split.reason === 'parser_failed')) return undefined;
  const words =
    split.ok &&
    split.hazards.length === 0 &&
    split.commands.length === 1 &&
    split.commands[0]!.assignments.length === 0
      ? split.commands[0]!.words
      : null;
  if (ruleWordCache.size >= RULE_WORD_CACHE_SIZE) ruleWordCache.clear();
  ruleWordCache.set(rule.command, words);
  return words ?? undefined;
}

const allowWordCache = new Map<string, readonly ShellWord[] | null>();

/**
 * The words of a `Bash(...)` rule's command as the grammar reads them (`readRuleCommand`), for
 * allow rules: `undefined` when the command is not one simple command of the grammar
 * (`Bash(npm test && npm run build)` can only match a whole line).
 */
export function allowRuleWords(rule: ParsedRule & { type: 'command' }): readonly ShellWord[] | undefined {
  const cached = allowWordCache.get(rule.command);
  if (cached !== undefined) return cached ?? undefined;
  const line = readRuleCommand(rule.command);
  const words = line.ok && line.commands.length === 1 ? line.commands[0]!.words : null;
  if (allowWordCache.size >= RULE_WORD_CACHE_SIZE) allowWordCache.clear();
  allowWordCache.set(rule.command, words);
  return words ?? undefined;
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
