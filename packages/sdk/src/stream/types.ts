import type { SdkError } from '../errors.js';
import type { MessageContext } from '../protocol/messageContext.js';
import type { SessionMessage, TurnEndStatus } from '../protocol/sessionMessage.js';

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** A message before the writer stamps it: `id` and `time` may be left out. */
export type MessageDraft = DistributiveOmit<SessionMessage, 'id' | 'time'> & { id?: string; time?: number };

/** Per-message options of an append. */
export interface EmitOptions {
  /** `false` stores this message without redacting it (docs/redaction.md, "Opting out"). */
  readonly redact?: boolean;
  /** What the appender knew beyond the message, for the writer's `encode` hook (an attachment's file name). */
  readonly context?: MessageContext;
}

/** Where an appended message ended up. */
export interface Delivered {
  readonly messageId: string;
  /**
   * Seq of the message's record; with a writer `encode` hook, of its last record, or for a message
   * that became no record, of the last record queued before it (0 when there was none).
   */
  readonly seq: number;
}

/**
 * Settles when the server has stored the message. Appending itself is synchronous (call order is
 * stream order); await this only when you need to know the record is stored. A failure also reaches
 * `writer.errors$` and `writer.flush()`, so an unawaited delivery never fails silently.
 */
export type Delivery = Promise<Delivered>;

/** Structural events of a writer, for components that plug into it (the permission gate). */
export type StreamLifecycleEvent =
  | {
      readonly kind: 'call-closing';
      readonly turn: string;
      readonly callId: string;
      /** The error the call ends with, if any. */
      readonly error?: string;
    }
  | { readonly kind: 'turn-closing'; readonly turn: string; readonly status: TurnEndStatus }
  | {
      readonly kind: 'writer-closing';
      /**
       * Set when the writer stops because another process took the session over
       * (docs/writer-lease.md): the waits a plug-in holds settle with this error, and nothing more
       * is written.
       */
      readonly revokedBy?: SdkError;
    };
