import { thumbHashToDataURL } from 'thumbhash';
import { decodeBase64 } from 'happy-session/crypto';
import type { MessageOfType } from 'happy-session';
import { byteSize, h } from './dom.js';
import { MACHINE_FILE_PREFIX, sniffImageType } from './mediaLoader.js';
import type { MediaLoader } from './mediaLoader.js';

type Photo = MessageOfType<'photo'>;
type Video = MessageOfType<'video'>;
type FileMessage = MessageOfType<'file'>;

/** Longest side a photo or video is shown at, as in the app (docs/wire.md §8.4). */
const MAX_WIDTH = 360;

/** The ThumbHash placeholder as a data URL, or undefined when the hash does not decode. */
export function placeholderUrl(thumbhash: string): string | undefined {
  try {
    return thumbHashToDataURL(decodeBase64(thumbhash));
  } catch {
    return undefined;
  }
}

function frame(kind: string, width: number, height: number): HTMLElement {
  const figure = h('figure', { class: `media ${kind}`, 'data-state': 'placeholder' });
  figure.style.aspectRatio = `${width} / ${height}`;
  figure.style.width = `${Math.min(MAX_WIDTH, width)}px`;
  return figure;
}

function failed(figure: HTMLElement, error: unknown): void {
  figure.dataset.state = 'failed';
  figure.append(
    h('figcaption', { class: 'media-error' }, error instanceof Error ? error.message : String(error)),
  );
}

function onAgentMachine(figure: HTMLElement, ref: string): void {
  figure.dataset.state = 'remote';
  figure.append(h('figcaption', {}, `On the agent's machine: ${ref.slice(MACHINE_FILE_PREFIX.length)}`));
}

/**
 * A photo: the ThumbHash placeholder at once, sized by the message's width and height, then the
 * decrypted image over it once downloaded.
 */
export function photoView(message: Photo, loader: MediaLoader): HTMLElement {
  const figure = frame('photo', message.width, message.height);
  const placeholder = placeholderUrl(message.thumbhash);
  if (placeholder) figure.append(h('img', { class: 'thumbhash', src: placeholder, alt: '' }));
  if (message.ref.startsWith(MACHINE_FILE_PREFIX)) {
    onAgentMachine(figure, message.ref);
    return figure;
  }
  loader.bytes(message.ref).then(
    (bytes) => {
      const image = h('img', { class: 'full', alt: `photo ${message.width}×${message.height}` });
      image.addEventListener('load', () => (figure.dataset.state = 'loaded'), { once: true });
      image.addEventListener('error', () => failed(figure, new Error('The photo does not decode.')), {
        once: true,
      });
      image.src = URL.createObjectURL(new Blob([bytes as BlobPart], { type: sniffImageType(bytes) }));
      figure.append(image);
    },
    (error: unknown) => failed(figure, error),
  );
  return figure;
}

/** A video: the ThumbHash as its poster first, then the decrypted video, playable in place. */
export function videoView(message: Video, loader: MediaLoader): HTMLElement {
  const figure = frame('video', message.width, message.height);
  const placeholder = placeholderUrl(message.thumbhash);
  if (placeholder) figure.append(h('img', { class: 'thumbhash', src: placeholder, alt: '' }));
  figure.append(
    h('figcaption', {}, `${(message.durationMs / 1000).toFixed(1)} s · ${byteSize(message.size)}`),
  );
  if (message.ref.startsWith(MACHINE_FILE_PREFIX)) {
    onAgentMachine(figure, message.ref);
    return figure;
  }
  loader.bytes(message.ref).then(
    (bytes) => {
      const video = h('video', { class: 'full', controls: '', playsinline: '', preload: 'metadata' });
      if (placeholder) video.poster = placeholder;
      video.addEventListener('loadeddata', () => (figure.dataset.state = 'loaded'), { once: true });
      video.addEventListener('error', () => failed(figure, new Error('The video does not play here.')), {
        once: true,
      });
      video.src = URL.createObjectURL(new Blob([bytes as BlobPart], { type: message.mimeType }));
      figure.prepend(video);
    },
    (error: unknown) => failed(figure, error),
  );
  return figure;
}

/** A file: name, size and type, and a button that downloads and decrypts it on demand. */
export function fileView(message: FileMessage, loader: MediaLoader): HTMLElement {
  const box = h(
    'div',
    { class: 'media file', 'data-state': 'idle' },
    h('span', { class: 'file-name' }, message.name),
    h('span', { class: 'file-meta' }, ` ${byteSize(message.size)} · ${message.mimeType}`),
  );
  if (message.ref.startsWith(MACHINE_FILE_PREFIX)) {
    box.dataset.state = 'remote';
    box.append(h('div', {}, `On the agent's machine: ${message.ref.slice(MACHINE_FILE_PREFIX.length)}`));
    return box;
  }
  const button = h('button', { type: 'button', class: 'file-download' }, 'Download');
  button.addEventListener('click', () => {
    button.disabled = true;
    box.dataset.state = 'loading';
    loader.bytes(message.ref).then(
      (bytes) => {
        const url = URL.createObjectURL(new Blob([bytes as BlobPart], { type: message.mimeType }));
        const link = h(
          'a',
          { href: url, download: message.name, class: 'file-link' },
          `Save ${message.name}`,
        );
        box.dataset.state = 'ready';
        button.replaceWith(link);
        link.click();
      },
      (error: unknown) => {
        button.disabled = false;
        box.dataset.state = 'failed';
        box.append(
          h('div', { class: 'media-error' }, error instanceof Error ? error.message : String(error)),
        );
      },
    );
  });
  box.append(button);
  return box;
}
