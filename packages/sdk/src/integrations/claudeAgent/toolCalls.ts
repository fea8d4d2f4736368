import type { ToolCallOptions } from '../../stream/builders.js';

/** Claude Code's tools that run a subagent: their calls nest the subagent's messages. */
export const SUBAGENT_TOOLS: readonly string[] = ['Task', 'Agent'];

/** A tool's input as the call's arguments: an object as it is, anything else as `{ input }`. */
export function argsOf(input: unknown): Record<string, unknown> {
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    return { ...(input as Record<string, unknown>) };
  }
  return input === undefined ? {} : { input };
}

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** A short title for a call of one of Claude Code's tools, from its input. */
export function titleOf(toolName: string, args: Readonly<Record<string, unknown>>): string {
  const path = text(args.file_path) ?? text(args.notebook_path) ?? text(args.path);
  switch (toolName) {
    case 'Bash':
      return text(args.description) ?? oneLine(text(args.command)) ?? toolName;
    case 'Read':
    case 'Write':
    case 'Edit':
    case 'MultiEdit':
    case 'NotebookEdit':
      return path ? `${toolName} ${path}` : toolName;
    case 'Glob':
    case 'Grep':
      return text(args.pattern) ? `${toolName} ${text(args.pattern)}` : toolName;
    case 'WebFetch':
      return text(args.url) ? `Fetch ${text(args.url)}` : toolName;
    case 'WebSearch':
      return text(args.query) ? `Search ${text(args.query)}` : toolName;
    case 'TodoWrite':
      return 'Update the plan';
    default:
      return text(args.description) ?? toolName;
  }
}

function oneLine(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const first = value.split('\n')[0]!;
  return first.length > 80 ? `${first.slice(0, 79)}…` : first;
}

/**
 * The session call's fields for one of Claude Code's tool uses: its name and input as they are, a
 * title, and for a subagent's tool the subagent's label. The gate knows Claude Code's tools by name
 * (their kinds); any other tool is treated as the most dangerous.
 */
export function callFields(toolName: string, args: Record<string, unknown>): ToolCallOptions {
  const subagent = SUBAGENT_TOOLS.includes(toolName);
  return {
    toolName,
    title: titleOf(toolName, args),
    args,
    ...(subagent ? { agentTitle: text(args.subagent_type) ?? text(args.description) ?? 'Subagent' } : {}),
  };
}
