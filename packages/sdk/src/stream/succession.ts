import type { PromptTakenMessage, SessionMessage, ToolCallStartMessage } from '../protocol/sessionMessage.js';

/** What a dead process left unfinished in a stream (docs/recovery.md): its open turns and calls. */
export interface LeftOpen {
  /** Turns with a `turn-start` and no `turn-end`, in the order they started. */
  readonly turns: readonly string[];
  /**
   * Calls with a `tool-call-start` and no `tool-call-end`, innermost first (a call nested under
   * another open call comes before it), so ending them in this order ends each child first.
   */
  readonly calls: readonly ToolCallStartMessage[];
}

/**
 * The turns and calls `messages` leave open: what a successor ends for the process that wrote
 * them (docs/recovery.md, "What a successor does").
 */
export function leftOpen(messages: Iterable<SessionMessage>): LeftOpen {
  const turns = new Map<string, true>();
  const calls = new Map<string, ToolCallStartMessage>();
  for (const m of messages) {
    if (m.role !== 'agent') continue;
    if (m.type === 'turn-start') turns.set(m.turn, true);
    else if (m.type === 'turn-end') turns.delete(m.turn);
    else if (m.type === 'tool-call-start') calls.set(m.callId, m);
    else if (m.type === 'tool-call-end') calls.delete(m.callId);
  }
  const open = [...calls.values()].filter((c) => turns.has(c.turn));
  return { turns: [...turns.keys()], calls: innermostFirst(open) };
}

/** Orders calls so that each comes before the open call it is nested under. */
function innermostFirst(calls: readonly ToolCallStartMessage[]): ToolCallStartMessage[] {
  const byId = new Map(calls.map((c) => [c.callId, c]));
  const depth = (c: ToolCallStartMessage): number => {
    let d = 0;
    const seen = new Set<string>();
    for (let p = c.parentId; p !== undefined && byId.has(p) && !seen.has(p); p = byId.get(p)!.parentId) {
      seen.add(p);
      d++;
    }
    return d;
  };
  return [...calls].sort((a, b) => depth(b) - depth(a));
}

/**
 * The `seq` of the last user prompt the agent took in `messages` (its `prompt-taken` marks), or
 * undefined when it took none there: a successor's prompts start after it (docs/recovery.md,
 * "Prompts").
 */
export function lastPromptTaken(messages: Iterable<SessionMessage>): number | undefined {
  let last: number | undefined;
  for (const m of messages) {
    if (m.type === 'prompt-taken' && m.role === 'agent')
      last = Math.max(last ?? 0, (m as PromptTakenMessage).seq);
  }
  return last;
}
