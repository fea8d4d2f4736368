import type { PlanEntry, PlanMessage } from '../sessionMessage.js';

/** The tool today's app draws as a checklist and takes the session's todo list from (docs/v1-format.md, "Plans"). */
export const TODO_WRITE_TOOL = 'TodoWrite';

/** One item of a `TodoWrite` list, in the app's field names. */
export interface V1Todo {
  readonly content: string;
  readonly status: PlanEntry['status'];
  readonly priority?: PlanEntry['priority'];
  readonly id: string;
}

/** A plan's entries as `TodoWrite` items; ids are the entries' positions, as Claude Code numbers them. */
export function todosOf(entries: readonly PlanEntry[]): V1Todo[] {
  return entries.map((entry, i) => ({
    content: entry.content,
    status: entry.status,
    ...(entry.priority !== undefined ? { priority: entry.priority } : {}),
    id: String(i + 1),
  }));
}

/** The card's description: how far the plan is, `Plan · 2 of 5 done`. */
export function planSummary(message: PlanMessage): string {
  const done = message.entries.filter((e) => e.status === 'completed').length;
  return `Plan · ${done} of ${message.entries.length} done`;
}

/** The v2 entries of a `TodoWrite` input written by the encoder; `undefined` when it holds none. */
export function entriesOfTodos(args: Record<string, unknown>): PlanEntry[] | undefined {
  const todos = args.todos;
  if (!Array.isArray(todos)) return undefined;
  const entries: PlanEntry[] = [];
  for (const todo of todos as unknown[]) {
    if (typeof todo !== 'object' || todo === null) return undefined;
    const { content, status, priority } = todo as Record<string, unknown>;
    entries.push({
      content,
      status,
      ...(priority !== undefined ? { priority } : {}),
    } as PlanEntry);
  }
  return entries;
}
