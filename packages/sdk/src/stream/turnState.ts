import type { ToolCall } from './toolCall.js';

/** What the builders of one turn share: whether it ended, its open calls in creation order, and its stop. */
export interface TurnState {
  readonly turnId: string;
  ended: boolean;
  readonly openCalls: Set<ToolCall>;
  /** Aborted when the user stops the turn or it ends: `turn.signal`, and every call's `signal`. */
  readonly stop: AbortController;
}
