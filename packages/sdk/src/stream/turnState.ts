import type { ToolCall } from './toolCall.js';

/** What the builders of one turn share: whether it ended, and its open calls in creation order. */
export interface TurnState {
  readonly turnId: string;
  ended: boolean;
  readonly openCalls: Set<ToolCall>;
}
