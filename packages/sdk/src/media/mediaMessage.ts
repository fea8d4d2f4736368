import type { SessionMessage } from '../protocol/sessionMessage.js';
import type { PreparedMedia } from './prepare.js';

/** A `photo`, `video` or `file` message, of either role (session protocol v2). */
export type MediaMessage = Extract<SessionMessage, { type: 'photo' | 'video' | 'file' }>;

/** The fields of an agent media message, before the scope stamps role, turn and parent. */
export type MediaMessageFields =
  | { type: 'photo'; ref: string; thumbhash: string; width: number; height: number }
  | {
      type: 'video';
      ref: string;
      thumbhash: string;
      width: number;
      height: number;
      durationMs: number;
      mimeType: string;
      size: number;
    }
  | { type: 'file'; ref: string; name: string; size: number; mimeType: string };

/** The prefix of a ref to a file left on the agent's machine: `machine-file://<absolute path>`. */
export const MACHINE_FILE_PREFIX = 'machine-file://';

/** True for `photo`, `video` and `file` messages. */
export function isMediaMessage(message: SessionMessage): message is MediaMessage {
  return message.type === 'photo' || message.type === 'video' || message.type === 'file';
}

/**
 * The message that references prepared media stored under `ref` (session protocol v2 `photo` /
 * `video` / `file`; docs/wire.md §8.1). `size` is always the plaintext size.
 */
export function mediaMessageFields(prepared: Omit<PreparedMedia, 'bytes'>, ref: string): MediaMessageFields {
  if (prepared.kind === 'photo' && prepared.photo) {
    const { width, height, thumbhash } = prepared.photo;
    return { type: 'photo', ref, thumbhash, width, height };
  }
  if (prepared.kind === 'video' && prepared.video) {
    const { width, height, durationMs, thumbhash } = prepared.video;
    return {
      type: 'video',
      ref,
      thumbhash,
      width,
      height,
      durationMs,
      mimeType: prepared.mimeType,
      size: prepared.size,
    };
  }
  return { type: 'file', ref, name: prepared.name, size: prepared.size, mimeType: prepared.mimeType };
}
