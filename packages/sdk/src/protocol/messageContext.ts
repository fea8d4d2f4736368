/**
 * What the program knew about a message that the v2 message itself does not carry. The writer hands
 * it to its `encode` hook with the message, so a wire format that needs more than v2 says can have
 * it (docs/v1-format.md, "Media"). It never reaches a v2 record.
 */
export interface MessageContext {
  /** For a `photo`, `video` or `file`: the attachment as `attach()` prepared it. */
  readonly attachment?: AttachmentContext;
}

/** An attachment's facts, from `attach()` (docs/media.md). */
export interface AttachmentContext {
  /** The file name: the path's base name, the `name` option, or a made-up one such as `photo-1.png`. */
  readonly name: string;
  /** Plaintext size in bytes. */
  readonly size: number;
  /** The type detected from the bytes (or given for a plain file). */
  readonly mimeType: string;
  /** A video's poster frame, uploaded as an image of its own (only when the pipeline was asked to). */
  readonly poster?: PosterContext;
}

/** An uploaded poster frame of a video. */
export interface PosterContext {
  /** The upload reference of the poster image. */
  readonly ref: string;
  /** Plaintext size of the poster image in bytes. */
  readonly size: number;
  /** The poster's type (`image/png`). */
  readonly mimeType: string;
}

/** The context of a message nobody said anything more about. */
export const NO_CONTEXT: MessageContext = Object.freeze({});
