import type {
  AgentFileMessage,
  AgentPhotoMessage,
  AgentVideoMessage,
  UserFileMessage,
  UserMessage,
  UserPhotoMessage,
  UserVideoMessage,
} from '../sessionMessage.js';
import type { V1Event } from './schemas.js';

type MediaMessage =
  | AgentPhotoMessage
  | UserPhotoMessage
  | AgentVideoMessage
  | UserVideoMessage
  | AgentFileMessage
  | UserFileMessage;

/** `ev text`; `thinking` is kept exactly as given, `false` included. */
export function textEvent(text: string, thinking: boolean | undefined): V1Event {
  return { t: 'text', text, ...(thinking !== undefined ? { thinking } : {}) };
}

/**
 * The display name of a blob the message names only by `ref`: the last path segment, without the
 * `.enc` suffix of server attachment names (`sessions/S/attachments/<file>.enc`).
 */
export function refName(ref: string, fallback: string): string {
  const path = ref.replace(/^machine-file:\/\//, '');
  const last = path
    .split('/')
    .filter((part) => part.length > 0)
    .pop();
  return last?.replace(/\.enc$/, '') || fallback;
}

/**
 * `ev file` for a photo, video or file (docs/wire.md §6.3, §8.4). A photo has no name or size in v2:
 * the name comes from its `ref` and the size is 0. A video keeps its poster's thumbhash and
 * dimensions as `image`, so the app shows the placeholder; it cannot play it.
 */
export function fileEvent(message: MediaMessage): V1Event {
  switch (message.type) {
    case 'photo':
      return {
        t: 'file',
        ref: message.ref,
        name: refName(message.ref, 'photo'),
        size: 0,
        image: { width: message.width, height: message.height, thumbhash: message.thumbhash },
      };
    case 'video':
      return {
        t: 'file',
        ref: message.ref,
        name: refName(message.ref, 'video'),
        size: message.size,
        mimeType: message.mimeType,
        image: { width: message.width, height: message.height, thumbhash: message.thumbhash },
      };
    case 'file':
      return {
        t: 'file',
        ref: message.ref,
        name: message.name,
        size: message.size,
        mimeType: message.mimeType,
      };
  }
}

/** The event of a user envelope, or undefined for a `permission-response` (no v1 equivalent). */
export function userEvent(message: UserMessage): V1Event | undefined {
  switch (message.type) {
    case 'text':
      return { t: 'text', text: message.text };
    case 'photo':
    case 'video':
    case 'file':
      return fileEvent(message);
    case 'permission-response':
      return undefined;
  }
}
