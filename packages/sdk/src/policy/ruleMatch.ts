import { readRuleCommand } from './bashGrammar.js';
import { stripBlanks } from './blanks.js';
import { canonicalArgs } from './callArgs.js';
import { pathReadings } from './pathArgument.js';
import { matchPathReadings, namesWorkspaceRoot } from './pathGlob.js';
import { namedPaths, READ_PATH_ARGS } from './readScope.js';
import { PATH_RULE_TOOLS, ruleCoversWholeTool, type ParsedRule } from './rules.js';
import { KNOWN_TOOL_KINDS } from './toolKinds.js';
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
  /**
   * What the rule is for: a path rule in a deny or ask list matches when any reading of the path
   * matches; in an allow list (the default) only when every reading does ({@link matchPathReadings}).
   */
  readonly purpose?: 'deny' | 'allow';
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
 * arguments): an exact-call rule `Tool{…}` by equal canonical arguments, an MCP wildcard by one
 * more name segment. `Bash(...)` rules are matched command by command by the policy, and say
 * `no-match` here.
 */
export function matchCallRule(
  rule: ParsedRule,
  toolName: string,
  args: unknown,
  context: RuleMatchContext = {},
): RuleMatch {
  if (rule.type === 'tool') return ruleCoversWholeTool(rule, toolName) ? 'match' : 'no-match';
  if (rule.type === 'mcp-server') {
    if (ruleCoversWholeTool(rule, toolName)) return 'match';
    // `mcp__github__evil__delete_repo` under `mcp__github__*`: whose tool it is cannot be told, so
    // an allow does not cover it and a deny still stops it where nobody would be asked.
    return toolName.startsWith(`mcp__${rule.prefix}__`) ? 'unknown' : 'no-match';
  }
  if (rule.type === 'path' && rule.toolName === 'Read' && toolName !== 'Read' && context.purpose === 'deny') {
    return Object.hasOwn(READ_PATH_ARGS, toolName)
      ? matchSearchedPaths(rule.pattern, toolName, args, context.workspaceRoot)
      : 'no-match';
  }
  // A deny or ask rule about one file-editing tool stops them all (`Edit(/etc/**)` a MultiEdit of
  // `/etc/hosts`): each edits the file its path names.
  if (
    rule.type === 'path' &&
    context.purpose === 'deny' &&
    rule.toolName !== toolName &&
    EDIT_RULE_TOOLS.has(rule.toolName) &&
    EDIT_RULE_TOOLS.has(toolName)
  ) {
    return matchCallRule({ ...rule, toolName }, toolName, args, context);
  }
  if (rule.toolName !== toolName || rule.type === 'command') return 'no-match';
  if (rule.type === 'call') return canonicalArgs(args, rule.args.length) === rule.args ? 'match' : 'no-match';
  if (rule.type === 'path') {
    // Every path argument the tool has counts (`Read` takes `file_path` and `path`): a deny rule
    // matches when one of them does, an allow rule needs all of them.
    const purpose = context.purpose ?? 'allow';
    const written = (PATH_RULE_TOOLS[toolName] ?? []).flatMap((key) => {
      const one = firstStringArg(args, [key]);
      return one === undefined ? [] : [one];
    });
    // A `file:` URL names its decoded path too; a URL of another scheme cannot be placed.
    const readings = written.map(pathReadings);
    if (readings.includes(undefined)) return 'unknown';
    const paths = readings.flatMap((r) => r ?? []);
    if (paths.length === 0) return 'unknown';
    const results = paths.map((p) => matchPathReadings(rule.pattern, p, context.workspaceRoot, purpose));
    if (purpose === 'deny' && results.includes(true)) return 'match';
    if (results.includes(undefined)) return 'unknown';
    return results.every((r) => r === true) ? 'match' : 'no-match';
  }
  const url = firstStringArg(args, ['url']);
  if (url === undefined) return 'unknown';
  let host: string;
  try {
    host = new URL(url).hostname.toLowerCase();
  } catch {
    return 'unknown';
  }
  // `evil.com.` is `evil.com`: the trailing dot only says the name is absolute.
  return withoutTrailingDots(host) === withoutTrailingDots(rule.domain) ? 'match' : 'no-match';
}

function withoutTrailingDots(host: string): string {
  let end = host.length;
  while (end > 0 && host[end - 1] === '.') end -= 1;
  return host.slice(0, end);
}

/**
 * The file-editing tools that path rules name (the `edit` kind among {@link PATH_RULE_TOOLS}): a
 * deny or ask rule about one of them is about all of them.
 */
const EDIT_RULE_TOOLS: ReadonlySet<string> = new Set(
  Object.keys(PATH_RULE_TOOLS).filter((name) => KNOWN_TOOL_KINDS[name] === 'edit'),
);

/**
 * A `Read(…)` deny or ask rule against the other tools that read files (`LS`, `Glob`, `Grep`,
 * `NotebookRead`): it matches when a path the call names, under any reading, matches the pattern
 * or, for a `dir/**` pattern, is `dir` itself. A call that names no path, or names the workspace
 * root, searches the whole workspace and is not matched (docs/permissions-policy.md, "Known limits
 * of path judging").
 */
function matchSearchedPaths(
  pattern: string,
  toolName: string,
  args: unknown,
  workspaceRoot: string | undefined,
): RuleMatch {
  const paths = namedPaths(toolName, args, true);
  if (paths === 'unreadable') return 'unknown';
  let unknown = false;
  for (const path of paths) {
    if (namesWorkspaceRoot(path, workspaceRoot)) continue;
    const patterns = pattern.endsWith('/**') ? [pattern, pattern.slice(0, -3)] : [pattern];
    for (const p of patterns) {
      const matched = matchPathReadings(p, path, workspaceRoot, 'deny');
      if (matched === true) return 'match';
      if (matched === undefined) unknown = true;
    }
  }
  return unknown ? 'unknown' : 'no-match';
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
