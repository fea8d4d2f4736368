import type { PermissionOption, PermissionPreview, SessionMessage } from '../protocol/sessionMessage.js';
import type { Delivery, MessageDraft } from './types.js';

/**
 * What the permission gate sees of a tool call: the narrow port `ToolCall` implements, so that
 * `permissions/` depends on no builder class (docs/architecture.md, "Floors of the SDK").
 *
 * `args` is the copy the call froze when it was made: the `tool-call-start`, the
 * `permission-request`, the executor and any grant all see that same copy, so what runs is what
 * was shown (docs/permissions-policy.md, "What runs is what was shown").
 */
export interface GatedCall {
  readonly callId: string;
  readonly toolName: string;
  readonly title: string;
  readonly description: string;
  /** The arguments as the call froze them when it was made (deeply frozen). */
  readonly args: Readonly<Record<string, unknown>>;
  /** The adapter's tool kind, if it gave one (not on the wire). */
  readonly kind: string | undefined;
  /** `false` when the call opted out of redaction. */
  readonly redact: boolean | undefined;
  /** The turn this call belongs to. */
  readonly turnId: string;
  /** Aborted when the turn is stopped or ends. */
  readonly signal: AbortSignal;
  /** True once the call's `tool-call-end` has been appended. */
  readonly ended: boolean;
  /**
   * Appends this call's `permission-request` with the record id `requestId` (in the scope the call
   * was made in, with the call's own fields and frozen arguments, redacted unless the call opted
   * out), with the preview of what it would do when the gate made one. Throws `SdkError` when that
   * scope is closed.
   */
  appendPermissionRequest(
    options: readonly PermissionOption[],
    requestId: string,
    preview?: PermissionPreview,
  ): Delivery;
  /** Appends a `service` note inside the call's scope (what the gate decided, and why). */
  note(text: string): Delivery;
  /** Appends the call's one `tool-call-end`; a second call returns the first delivery. */
  end(options?: { readonly error?: string }): Delivery;
  /** Stops the call's turn (the user denied and asked to stop). */
  stopTurn(reason: Error): void;
}

/** What the permission gate needs of the writer it is installed on: implemented by `SessionWriter`. */
export interface GateWriter {
  /** Appends a session-level `service` note (mode changes, revoked rules). */
  service(text: string): Delivery;
  /** The value as the writer would store it: every secret redacted. */
  redactValue<T>(value: T): T;
  /**
   * Appends one message as given: the gate's record of an answer it applied, the end of a call a
   * dead process left waiting. Throws `SdkError` when it does not validate.
   */
  append(draft: MessageDraft): Delivery;
  /** Like {@link GateWriter.append}, and also returns the message as stamped (its `id` and `time`). */
  appendMessage(draft: MessageDraft): { readonly message: SessionMessage; readonly delivery: Delivery };
}
