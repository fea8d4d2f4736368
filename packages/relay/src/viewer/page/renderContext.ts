import type { PermissionRequestMessage, PermissionResponseMessage } from 'happy-session/protocol';
import type { MediaLoader } from './mediaLoader.js';
import type { QuestionResponder } from './questionView.js';

/** What the agent's RPC made of an answer; the stream half either succeeded or threw. */
export type RpcOutcome = { readonly ok: true } | { readonly ok: false; readonly error: string };

/**
 * Answers permission requests of one session from the page, as the app's buttons do: the user's
 * `permission-response` in the stream, then the agent's `permission` RPC (`UserSession.answer`).
 */
export interface PermissionResponder {
  /** Resolves once the answer is stored, with the RPC's outcome; rejects when it could not be stored. */
  answer(request: PermissionRequestMessage, optionId: string): Promise<RpcOutcome>;
  /** True when `response` was sent from this page. */
  isMine(response: PermissionResponseMessage): boolean;
}

/** What the stream says about a request now. */
export interface PermissionState {
  /** The first valid answer in the stream, if any: what someone chose. */
  readonly response: PermissionResponseMessage | undefined;
  /**
   * The answer the agent confirmed (its record of an answer it took, or the user's own record its
   * note names), once there is one: the decision (docs/permissions.md, "One arbitration"). Until
   * then the card waits for the agent.
   */
  readonly decided: PermissionResponseMessage | undefined;
  /** The call ended (with this error, if any) before an answer: the request is closed. */
  readonly ended: boolean;
  readonly endError: string | undefined;
}

/** What the views of one session need besides the folded tree. */
export interface RenderContext {
  readonly media: MediaLoader;
  readonly responder: PermissionResponder;
  /** Answers the agent's questions, and says how each ended. */
  readonly questions: QuestionResponder;
  /** The request's answer and whether its call has ended, as the stream says now. */
  permissionState(request: PermissionRequestMessage): PermissionState;
}

/** A rendered node of the tree; `update` re-reads the node's mutable parts (status, children). */
export interface NodeView {
  readonly element: HTMLElement;
  update(): void;
}
