import prettyBytes from 'pretty-bytes';
import prettyMilliseconds from 'pretty-ms';
import type { AttachmentContext } from '../messageContext.js';
import type { SessionMessage } from '../sessionMessage.js';
import type { V1Event, V1Media } from './schemas.js';

/** A `photo`, `video` or `file` message, of either role. */
export type V1MediaMessage = Extract<SessionMessage, { type: 'photo' | 'video' | 'file' }>;

const MACHINE_FILE_PREFIX = 'machine-file://';

/** Markdown that a file name could carry by accident (`my_file_v2.pdf` would turn italic). */
const MARKDOWN_SPECIAL = /[\\`*_[\]<>|~]/g;

/**
 * Names for media that came without one (a photo appended by hand has none in v2): `photo-1`,
 * `video-1`, … in stream order.
 */
export class UnnamedMedia {
  private readonly counts = { photo: 0, video: 0 };

  next(kind: 'photo' | 'video'): string {
    this.counts[kind] += 1;
    return `${kind}-${this.counts[kind]}`;
  }
}

/**
 * The v1 event that shows an attachment in today's app (docs/v1-format.md, "Media"). The app draws
 * every `file` event as an image box whose bytes it decodes as an image, captioned with `name`, and
 * shows neither size nor type. So:
 *
 * - a photo is a `file` event captioned with its file name;
 * - a video whose poster frame was uploaded is that poster's `file` event, captioned
 *   `▶ clip.mp4 · 0:45`; the video itself rides along in `media` for readers;
 * - everything else (a plain file, a video without a poster, anything left on the agent's machine,
 *   which the app cannot download) is a text line with name, type and size, never an image box.
 */
export function mediaEvent(
  message: V1MediaMessage,
  attachment: AttachmentContext | undefined,
  unnamed: UnnamedMedia,
): V1Event {
  const name = message.type === 'file' ? message.name : (attachment?.name ?? unnamed.next(message.type));
  if (message.ref.startsWith(MACHINE_FILE_PREFIX)) return textLine(message, name, attachment);
  switch (message.type) {
    case 'photo':
      return {
        t: 'file',
        ref: message.ref,
        name,
        size: attachment?.size ?? 0,
        ...(attachment ? { mimeType: attachment.mimeType } : {}),
        image: { width: message.width, height: message.height, thumbhash: message.thumbhash },
      };
    case 'video': {
      const poster = attachment?.poster;
      if (!poster) return textLine(message, name, attachment);
      return {
        t: 'file',
        ref: poster.ref,
        name: `▶ ${name} · ${duration(message.durationMs)}`,
        size: poster.size,
        mimeType: poster.mimeType,
        image: { width: message.width, height: message.height, thumbhash: message.thumbhash },
        media: v2Media(message),
      };
    }
    case 'file':
      return textLine(message, name, attachment);
  }
}

/** `📎 report.pdf · application/pdf · 2.05 MB`, with the attachment kept in `media` for readers. */
function textLine(message: V1MediaMessage, name: string, attachment: AttachmentContext | undefined): V1Event {
  const details: string[] = [];
  let icon: string;
  switch (message.type) {
    case 'photo':
      icon = '🖼️';
      details.push(`${message.width}×${message.height}`);
      if (attachment) details.push(attachment.mimeType, prettyBytes(attachment.size));
      break;
    case 'video':
      icon = '🎬';
      details.push(duration(message.durationMs), `${message.width}×${message.height}`);
      details.push(message.mimeType, prettyBytes(message.size));
      break;
    case 'file':
      icon = '📎';
      details.push(message.mimeType, prettyBytes(message.size));
      break;
  }
  if (message.ref.startsWith(MACHINE_FILE_PREFIX)) {
    details.push(`on the agent's machine: ${message.ref.slice(MACHINE_FILE_PREFIX.length)}`);
  }
  const text = [`${icon} ${name}`, ...details].map(escapeMarkdown).join(' · ');
  return { t: 'text', text, media: v2Media(message) };
}

/** The attachment's own fields, as the v2 message has them. */
function v2Media(message: V1MediaMessage): V1Media {
  switch (message.type) {
    case 'photo':
      return {
        type: 'photo',
        ref: message.ref,
        thumbhash: message.thumbhash,
        width: message.width,
        height: message.height,
      };
    case 'video':
      return {
        type: 'video',
        ref: message.ref,
        thumbhash: message.thumbhash,
        width: message.width,
        height: message.height,
        durationMs: message.durationMs,
        mimeType: message.mimeType,
        size: message.size,
      };
    case 'file':
      return {
        type: 'file',
        ref: message.ref,
        name: message.name,
        size: message.size,
        mimeType: message.mimeType,
      };
  }
}

/** `0:45`, `1:02:03`: how a player shows a length. */
function duration(ms: number): string {
  return prettyMilliseconds(Math.round(ms / 1000) * 1000, { colonNotation: true });
}

function escapeMarkdown(text: string): string {
  return text.replace(MARKDOWN_SPECIAL, '\\$&');
}
