import type { ToolCallStartMessage } from '../sessionMessage.js';

/** Joins the titles of a call's path: `deploy › build › compile`. */
export const PATH_SEPARATOR = ' › ';

interface KnownCall {
  readonly turn: string;
  readonly parentId: string | undefined;
  /** What the call's children put in front of their own title: its subagent's title, or its own. */
  readonly prefix: string;
}

/**
 * The label today's app shows for each tool call (docs/v1-format.md, "Labels"). The app reads a
 * call's label from `description` and shows v1 nesting neither reliably nor deeper than one level,
 * so every call is written at the top of its turn and its label carries the path of its parents:
 * `deploy › build › compile`. A subagent's calls carry the subagent's title (`agentTitle` of the
 * call that spawned it).
 */
export class CallLabels {
  private readonly calls = new Map<string, KnownCall>();

  /** Records a `tool-call-start` and returns its label. */
  started(message: ToolCallStartMessage): string {
    const own = message.title.trim() || message.toolName;
    this.calls.set(message.callId, {
      turn: message.turn,
      parentId: message.parentId,
      prefix: message.agentTitle?.trim() || own,
    });
    return [...this.pathOf(message.parentId), own].join(PATH_SEPARATOR);
  }

  /** Forgets the calls of an ended turn: nothing can be written inside them any more. */
  turnEnded(turn: string): void {
    for (const [callId, call] of this.calls) if (call.turn === turn) this.calls.delete(callId);
  }

  /** The prefixes of `parentId` and its ancestors, outermost first; a loop of parents ends the walk. */
  private pathOf(parentId: string | undefined): string[] {
    const path: string[] = [];
    const seen = new Set<string>();
    for (let id = parentId; id !== undefined && !seen.has(id);) {
      seen.add(id);
      const call = this.calls.get(id);
      if (!call) break;
      path.unshift(call.prefix);
      id = call.parentId;
    }
    return path;
  }
}
