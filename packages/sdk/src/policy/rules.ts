import type { PermissionsErrorCode } from '../errorCodes.js';
import { SdkError } from '../errors.js';
import { err, ok, type Result } from '../result.js';
import { stripBlanks } from './blanks.js';
import { canonicalArgs } from './callArgs.js';
import { UNSAFE_SHELL_CHARACTERS } from './shellWords.js';
import { canonicalToolName } from './toolKinds.js';

/**
 * A permission rule, parsed (docs/permissions-requirements.md R5, Claude Code syntax). Rule strings look like:
 *
 * - `Tool` — every call of the tool, whatever its arguments (`WebFetch`, `Edit`, `mcp__db__query`);
 * - `mcp__server__*` — every tool of one MCP server: one more name segment, so `mcp__github__*`
 *   covers `mcp__github__create_issue` but not `mcp__github__evil__delete_repo`;
 * - `Tool{json}` — exactly one call: the tool with exactly these arguments, a JSON object compared
 *   as a JSON value (stored in {@link canonicalArgs canonical form}), e.g.
 *   `mcp__shell__run_command{"command":"ls"}`. What an "allow for this session" grants for a
 *   tool that may run anything (docs/permissions-policy.md, "Session rules"); not for Bash, whose
 *   exact rule is `Bash(cmd)`;
 * - `Bash(cmd)` — exactly the simple command `cmd`, compared word by word after quote removal
 *   (surrounding spaces, tabs and newlines are not part of it);
 * - `Bash(cmd:*)` — `cmd`'s words as the first words of the command: `cmd` alone or followed by
 *   more words, never `cmdx`. Only a trailing `:*` is special; any other `*` is part of the command.
 *   A command with control characters or Unicode spaces is refused: no command line that holds
 *   them outside quotes is ever allowed by a rule;
 * - `Read(glob)`, `Edit(glob)`, `Write(glob)`, `MultiEdit(glob)`, `NotebookEdit(glob)`,
 *   `NotebookRead(glob)` — the file the call names, as a path glob relative to the workspace root
 *   (`**` any depth, `*` and `?` within one segment; a pattern without `/` matches the file name
 *   at any depth, gitignore-style; a leading `/` makes it absolute);
 * - `WebFetch(domain:host)` — a URL whose host name is exactly `host`.
 *
 * Any other tool with a specifier is refused at configuration: we would not know which argument
 * it is about. Tool names are compared exactly after {@link canonicalToolName}.
 */
export type ParsedRule =
  | { readonly type: 'tool'; readonly toolName: string }
  | { readonly type: 'mcp-server'; readonly prefix: string }
  /** `args` is the canonical JSON text of the arguments ({@link canonicalArgs}). */
  | { readonly type: 'call'; readonly toolName: string; readonly args: string }
  | {
      readonly type: 'command';
      readonly toolName: 'Bash';
      readonly command: string;
      readonly prefix: boolean;
    }
  | { readonly type: 'path'; readonly toolName: string; readonly pattern: string }
  | { readonly type: 'domain'; readonly toolName: 'WebFetch'; readonly domain: string };

/** The code of every rule-parsing failure. */
export type RuleErrorCode = Extract<PermissionsErrorCode, 'permissions.invalid_rule'>;

/** Tools whose specifier is a path glob, and the argument that names the file. */
export const PATH_RULE_TOOLS: Readonly<Record<string, readonly string[]>> = Object.freeze({
  Read: ['file_path', 'path'],
  Edit: ['file_path'],
  Write: ['file_path'],
  MultiEdit: ['file_path'],
  NotebookEdit: ['notebook_path'],
  NotebookRead: ['notebook_path'],
});

/** Longest rule string accepted. */
export const MAX_RULE_LENGTH = 10_000;

const TOOL_NAME = /^[A-Za-z0-9_.:-]+$/;
const MCP_SERVER_PATTERN = /^mcp__([A-Za-z0-9_.:-]+?)__\*$/;
/** One segment of an MCP name: no empty part, no `__` inside, none at its start. */
const MCP_SEGMENT = /^[A-Za-z0-9.:-]+(?:_[A-Za-z0-9.:-]+)*_?$/;
const HOST = /^[a-z0-9-]+(\.[a-z0-9-]+)*$/;

/**
 * Parses a rule string. A malformed rule is a configuration error, returned as a typed
 * `permissions.invalid_rule` naming the rule, so a host finds out at start-up rather than by a
 * rule that silently never matches.
 */
export function parseRule(text: unknown): Result<ParsedRule, SdkError<RuleErrorCode>> {
  if (typeof text !== 'string') return invalid(String(text), 'a rule must be a string');
  // ASCII blanks only: `trim()` would also drop U+00A0 and friends, which bash keeps in a word.
  const trimmed = stripBlanks(text, ' \t\n\r');
  if (trimmed.length === 0) return invalid(text, 'the rule is empty');
  if (trimmed.length > MAX_RULE_LENGTH) return invalid(trimmed.slice(0, 40) + '…', 'the rule is too long');

  const open = trimmed.indexOf('(');
  const brace = trimmed.indexOf('{');
  if (brace !== -1 && (open === -1 || brace < open)) return parseCallRule(trimmed, brace);
  if (open === -1) return parseToolOnly(trimmed);
  if (!trimmed.endsWith(')')) return invalid(trimmed, 'a specifier must end with ")"');

  const name = canonicalToolName(trimmed.slice(0, open));
  if (!TOOL_NAME.test(name)) return invalid(trimmed, 'the tool name has characters a tool name cannot have');
  const specifier = stripBlanks(trimmed.slice(open + 1, -1));
  if (specifier.length === 0)
    return invalid(trimmed, `write "${name}" without parentheses to match every call`);

  if (name === 'Bash') return parseCommandSpecifier(trimmed, specifier);
  if (Object.hasOwn(PATH_RULE_TOOLS, name)) return parsePathSpecifier(trimmed, name, specifier);
  if (name === 'WebFetch') return parseDomainSpecifier(trimmed, specifier);
  return invalid(
    trimmed,
    `${name} takes no specifier; only Bash, WebFetch and the file tools do. Use "${name}" to match every call`,
  );
}

/** The canonical text of a rule; `parseRule(formatRule(r))` gives `r` back. */
export function formatRule(rule: ParsedRule): string {
  switch (rule.type) {
    case 'tool':
      return rule.toolName;
    case 'mcp-server':
      return `mcp__${rule.prefix}__*`;
    case 'call':
      return `${rule.toolName}${rule.args}`;
    case 'command':
      return `Bash(${rule.command}${rule.prefix ? ':*' : ''})`;
    case 'path':
      return `${rule.toolName}(${rule.pattern})`;
    case 'domain':
      return `WebFetch(domain:${rule.domain})`;
  }
}

/** The tool a rule is about, or `undefined` for an MCP-server wildcard. */
export function ruleToolName(rule: ParsedRule): string | undefined {
  return rule.type === 'mcp-server' ? undefined : rule.toolName;
}

/** True when the rule names the tool (canonical name) regardless of the call's arguments. */
export function ruleCoversWholeTool(rule: ParsedRule, canonicalName: string): boolean {
  if (rule.type === 'tool') return rule.toolName === canonicalName;
  if (rule.type === 'mcp-server') {
    const head = `mcp__${rule.prefix}__`;
    return canonicalName.startsWith(head) && MCP_SEGMENT.test(canonicalName.slice(head.length));
  }
  return false;
}

function parseToolOnly(text: string): Result<ParsedRule, SdkError<RuleErrorCode>> {
  if (text.includes(')')) return invalid(text, 'unbalanced ")"');
  const server = MCP_SERVER_PATTERN.exec(text);
  if (server) {
    if (!MCP_SEGMENT.test(server[1]!))
      return invalid(text, 'the server name must be one name segment (no "__")');
    return ok(Object.freeze({ type: 'mcp-server' as const, prefix: server[1]! }));
  }
  if (text.includes('*')) return invalid(text, 'the only tool-name wildcard is mcp__<server>__*');
  const toolName = canonicalToolName(text);
  if (!TOOL_NAME.test(toolName)) return invalid(text, 'the tool name has characters a tool name cannot have');
  return ok(Object.freeze({ type: 'tool' as const, toolName }));
}

function parseCallRule(text: string, brace: number): Result<ParsedRule, SdkError<RuleErrorCode>> {
  const toolName = canonicalToolName(text.slice(0, brace));
  if (!TOOL_NAME.test(toolName)) return invalid(text, 'the tool name has characters a tool name cannot have');
  if (toolName === 'Bash') return invalid(text, 'write an exact command as Bash(command)');
  let value: unknown;
  try {
    value = JSON.parse(text.slice(brace));
  } catch {
    return invalid(text, 'the arguments after the tool name must be one JSON object');
  }
  const args = canonicalArgs(value);
  if (args === undefined) return invalid(text, 'the arguments after the tool name must be one JSON object');
  if (toolName.length + args.length > MAX_RULE_LENGTH) return invalid(toolName, 'the rule is too long');
  return ok(Object.freeze({ type: 'call' as const, toolName, args }));
}

function parseCommandSpecifier(text: string, specifier: string): Result<ParsedRule, SdkError<RuleErrorCode>> {
  const prefix = specifier.endsWith(':*');
  const command = prefix ? stripBlanks(specifier.slice(0, -2)) : specifier;
  if (command.length === 0) return invalid(text, 'use "Bash" to match every command');
  if (UNSAFE_SHELL_CHARACTERS.test(command)) {
    return invalid(text, 'the command has control characters or Unicode spaces, which no rule may match');
  }
  return ok(Object.freeze({ type: 'command' as const, toolName: 'Bash' as const, command, prefix }));
}

function parsePathSpecifier(
  text: string,
  toolName: string,
  pattern: string,
): Result<ParsedRule, SdkError<RuleErrorCode>> {
  if (pattern.includes('\\')) return invalid(text, 'write paths with "/"');
  if (pattern.split('/').includes('..')) return invalid(text, 'a path pattern may not contain ".."');
  return ok(Object.freeze({ type: 'path' as const, toolName, pattern }));
}

function parseDomainSpecifier(text: string, specifier: string): Result<ParsedRule, SdkError<RuleErrorCode>> {
  if (!specifier.startsWith('domain:')) return invalid(text, 'WebFetch takes "domain:<host>"');
  const domain = specifier.slice('domain:'.length).trim().toLowerCase();
  if (!HOST.test(domain)) return invalid(text, 'the domain is not a host name');
  return ok(Object.freeze({ type: 'domain' as const, toolName: 'WebFetch' as const, domain }));
}

function invalid(rule: string, why: string): Result<never, SdkError<RuleErrorCode>> {
  return err(
    new SdkError('permissions.invalid_rule', `Invalid permission rule "${rule}": ${why}.`, {
      details: { rule },
    }),
  );
}
