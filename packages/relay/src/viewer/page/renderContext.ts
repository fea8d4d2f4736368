import type { PermissionRequestMessage } from 'happy-session';
import type { MediaLoader } from './mediaLoader.js';
import type { PermissionState } from './permissionView.js';
import type { PermissionResponder } from './respond.js';

/** What the views of one session need besides the folded tree. */
export interface RenderContext {
  readonly media: MediaLoader;
  readonly responder: PermissionResponder;
  /** The request's answer and whether its call has ended, as the stream says now. */
  permissionState(request: PermissionRequestMessage): PermissionState;
}

/** A rendered node of the tree; `update` re-reads the node's mutable parts (status, children). */
export interface NodeView {
  readonly element: HTMLElement;
  update(): void;
}
