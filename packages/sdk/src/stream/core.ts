import type { Logger } from '../logger.js';
import type { SessionMessage } from '../protocol/sessionMessage.js';
import type { WriterPlugins } from './plugins.js';
import type { Delivery, EmitOptions, MessageDraft, StreamLifecycleEvent } from './types.js';

/**
 * What builders need from their writer. Kept as an interface so that Turn, ToolCall and Scope do
 * not depend on the writer class itself.
 */
export interface WriterCore {
  /**
   * Validates, stamps, encrypts and queues one message; throws `SdkError` if it is invalid.
   * `options.context` goes to the writer's `encode` hook with the message.
   */
  emit(draft: MessageDraft, options?: EmitOptions): { message: SessionMessage; delivery: Delivery };
  /**
   * {@link WriterCore.emit} of a draft the builder has just made and hands over: the writer may
   * stamp it in place instead of copying it. Validated and redacted all the same.
   */
  emitOwn(draft: MessageDraft, options?: EmitOptions): { message: SessionMessage; delivery: Delivery };
  /** Announces a structural event before its message is appended. */
  announce(event: StreamLifecycleEvent): void;
  /** A fresh cuid2. */
  createId(): string;
  /** The writer's logger. */
  readonly logger: Logger;
  /** The permission gate and media pipeline, when installed. */
  readonly plugins: WriterPlugins;
}
