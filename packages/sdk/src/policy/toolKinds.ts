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

/**
 * True when `toolName` is one of `interactionTools` however it is spelled
 * (docs/permissions-policy.md, "Precedence: deny > ask > mode > allow"): both are compared folded (NFKC, lower
 * case, letters and digits only, so `askUserQuestion`, `ask_user_question` and `ASK-USER-QUESTION`
 * are `AskUserQuestion`), and a namespaced name (`mcp__server__ask_user_question`, `tools/ask`,
 * `agent.AskUserQuestion`, `x:AskUserQuestion`) is compared by its last part too. Unlike
 * {@link TOOL_NAME_ALIASES}, a loose match here can only make a call ask more.
 */
export function isInteractionTool(toolName: string, interactionTools: readonly string[]): boolean {
  // The whole name and every part of it: a version or a separator after the name
  // (`ExitPlanMode.v1`, `ask_user_question:v2`, `tools/ExitPlanMode/`) leaves it the same tool.
  const names = [toolName, ...toolName.split(NAMESPACE_SEPARATOR)].map(foldToolName).filter((n) => n !== '');
  return interactionTools.some((tool) => {
    const folded = foldToolName(tool);
    return folded !== '' && names.includes(folded);
  });
}

/** Where a namespaced tool name (MCP's `mcp__server__tool`, a path, a dotted or prefixed name) parts. */
const NAMESPACE_SEPARATOR = /__|[/.:@]/;

/** A tool name reduced to what a reader takes it for: NFKC, lower case, ASCII letters and digits. */
function foldToolName(name: string): string {
  return (
    name
      .normalize('NFKD')
      // Combining marks read as nothing (`AskUserQuestion\u0301` shows as …Questioń).
      .replace(/\p{M}/gu, '')
      .normalize('NFKC')
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')
  );
}

/** True when `value` is one of the {@link ToolKind}s. */
export function isToolKind(value: unknown): value is ToolKind {
  return typeof value === 'string' && (TOOL_KINDS as readonly string[]).includes(value);
}

/** The canonical spelling of a tool name ({@link TOOL_NAME_ALIASES}); other names are unchanged. */
export function canonicalToolName(toolName: string): string {
  return Object.hasOwn(TOOL_NAME_ALIASES, toolName) ? TOOL_NAME_ALIASES[toolName]! : toolName;
}

/**
 * The kinds of call a person sees whole when shown one (they only read): "allow for this session"
 * grants the whole tool only for a known tool of these kinds, and a whole-tool session grant
 * covers only calls of these kinds (docs/permissions-policy.md, "Session rules").
 */
export const SEEN_KINDS: readonly ToolKind[] = ['read', 'search', 'think'];

/** The kinds that change files: what `acceptEdits` allows, and what stays in the workspace (docs/permissions-policy.md). */
export const EDIT_KINDS: readonly ToolKind[] = ['edit', 'delete', 'move'];

/**
 * The kind a tool call is judged by, when one kind must do: of {@link toolKindsOf}, the one in the
 * more dangerous column of the mode table (read, search, think < edit, delete, move < the rest).
 * So a known tool ({@link KNOWN_TOOL_KINDS}) keeps its kind unless the caller names a more
 * dangerous one; an unknown tool takes the adapter's explicit kind (ACP sends one with each tool
 * call), `other` when that kind is not known (an ACP v2 `_custom` kind, a typo: fail closed) or
 * missing. The policy itself judges by every kind of {@link toolKindsOf} and takes the strictest
 * cell.
 */
export function classifyTool(toolName: string, explicitKind?: string): ToolKind {
  const kinds = toolKindsOf(toolName, explicitKind);
  return kinds.reduce((a, b) => (COLUMN[b] > COLUMN[a] ? b : a));
}

const COLUMN: Readonly<Record<ToolKind, number>> = {
  read: 0,
  search: 0,
  think: 0,
  edit: 1,
  delete: 1,
  move: 1,
  execute: 2,
  fetch: 2,
  switch_mode: 2,
  other: 2,
};

/**
 * Every kind a call is judged by (docs/permissions-policy.md, "A known tool keeps its kind"): a
 * known tool's own kind, then the caller's explicit kind if it differs. The policy takes the
 * strictest mode cell among them, so `{toolName: 'Bash', kind: 'read'}` is still judged as
 * `execute`, while `{toolName: 'Read', kind: 'execute'}` is judged as both.
 */
export function toolKindsOf(toolName: string, explicitKind?: string): readonly ToolKind[] {
  const canonical = canonicalToolName(toolName);
  const explicit = explicitKind === undefined ? undefined : isToolKind(explicitKind) ? explicitKind : 'other';
  const known = Object.hasOwn(KNOWN_TOOL_KINDS, canonical) ? KNOWN_TOOL_KINDS[canonical] : undefined;
  if (known === undefined) return [explicit ?? 'other'];
  return explicit === undefined || explicit === known ? [known] : [known, explicit];
}
