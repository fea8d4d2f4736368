import type { PlanEntry } from '../../protocol/sessionMessage.js';

const STATUSES: readonly string[] = ['pending', 'in_progress', 'completed'];
const PRIORITIES: readonly string[] = ['high', 'medium', 'low'];

/**
 * The plan a `TodoWrite` input holds (`{ todos: [{ content, status, priority? }] }`), as the
 * session's plan entries (docs/streaming.md); entries without text or with an unknown status are
 * left out. `undefined` when the input holds no list.
 */
export function planOfTodos(input: unknown): PlanEntry[] | undefined {
  const todos = (input as { todos?: unknown } | null)?.todos;
  if (!Array.isArray(todos)) return undefined;
  return todos.flatMap((todo: unknown): PlanEntry[] => {
    if (typeof todo !== 'object' || todo === null) return [];
    const { content, status, priority } = todo as Record<string, unknown>;
    if (typeof content !== 'string' || content.trim() === '' || typeof status !== 'string') return [];
    if (!STATUSES.includes(status)) return [];
    return [
      {
        content,
        status: status as PlanEntry['status'],
        ...(typeof priority === 'string' && PRIORITIES.includes(priority)
          ? { priority: priority as NonNullable<PlanEntry['priority']> }
          : {}),
      },
    ];
  });
}
