/**
 * What a tool does, in the vocabulary of ACP's `ToolKind` (permissions docs/permissions-requirements.md R4.2). Modes are
 * defined per kind, so a new tool needs a kind, not a new mode rule.
 */
export type ToolKind =
  'read' | 'search' | 'think' | 'fetch' | 'edit' | 'delete' | 'move' | 'execute' | 'switch_mode' | 'other';

/** Every {@link ToolKind}. */
export const TOOL_KINDS: readonly ToolKind[] = [
  'read',
  'search',
  'think',
  'fetch',
  'edit',
  'delete',
  'move',
  'execute',
  'switch_mode',
  'other',
];

/**
 * Known spellings of the same tool, mapped to one canonical name (R5.1). A table, never a
 * substring or case-insensitive test: `bash` is the v2 protocol example's name for Claude's `Bash`.
 */
export const TOOL_NAME_ALIASES: Readonly<Record<string, string>> = Object.freeze({
  bash: 'Bash',
  exit_plan_mode: 'ExitPlanMode',
});

/**
 * Kinds of the tools whose names are known (Claude Code's built-in tools and the tools today's
 * Happy CLI synthesises for Codex). Looked up by exact canonical name only.
 */
export const KNOWN_TOOL_KINDS: Readonly<Record<string, ToolKind>> = Object.freeze({
  Read: 'read',
  NotebookRead: 'read',
  LS: 'read',
  Glob: 'search',
  Grep: 'search',
  WebSearch: 'fetch',
  WebFetch: 'fetch',
  Edit: 'edit',
  MultiEdit: 'edit',
  Write: 'edit',
  NotebookEdit: 'edit',
  CodexPatch: 'edit',
  Bash: 'execute',
  CodexBash: 'execute',
  TodoWrite: 'think',
  ExitPlanMode: 'switch_mode',
});

/**
 * Tools that exist to ask the user something, so no mode or allow rule may answer for them
 * (docs/permissions-requirements.md E14, R4.1 step 3). Hosts can add their own through the policy configuration.
 */
export const DEFAULT_REQUIRES_INTERACTION: readonly string[] = ['AskUserQuestion', 'ExitPlanMode'];

/** True when `value` is one of the {@link ToolKind}s. */
export function isToolKind(value: unknown): value is ToolKind {
  return typeof value === 'string' && (TOOL_KINDS as readonly string[]).includes(value);
}

/** The canonical spelling of a tool name ({@link TOOL_NAME_ALIASES}); other names are unchanged. */
export function canonicalToolName(toolName: string): string {
  return Object.hasOwn(TOOL_NAME_ALIASES, toolName) ? TOOL_NAME_ALIASES[toolName]! : toolName;
}

/**
 * The kind a tool call is judged by.
 *
 * An explicit kind from the adapter (ACP sends one with each tool call) wins when it is a known
 * kind. An explicit kind that is not known (an ACP v2 `_custom` kind, a typo) gives `other`, not
 * the name-based guess: the adapter said something we do not understand, so we fail closed.
 * Without an explicit kind, the name is looked up in {@link KNOWN_TOOL_KINDS}; any other tool
 * (MCP tools, host tools) is `other`, which every mode treats as the most dangerous class.
 */
export function classifyTool(toolName: string, explicitKind?: string): ToolKind {
  if (explicitKind !== undefined) return isToolKind(explicitKind) ? explicitKind : 'other';
  const canonical = canonicalToolName(toolName);
  return Object.hasOwn(KNOWN_TOOL_KINDS, canonical) ? KNOWN_TOOL_KINDS[canonical]! : 'other';
}
