import { basename } from 'node:path';
import type { FileProgress as SdkFileProgress, SessionMessage } from 'happy-session';
import { formatBytes } from '../output.js';
import { progressDisplay } from './fileProgress.js';
import type { FileProgress, ProgressDisplay, ProgressTarget } from './fileProgress.js';

/**
 * The files of one `send --file` or `attach`, each with its bar or lines: `prepare` until the
 * first byte leaves, then `upload`, then what it became.
 */
export class UploadProgress {
  private readonly display: ProgressDisplay;
  private readonly files: FileProgress[];
  private readonly uploading = new Set<number>();

  constructor(paths: readonly string[], target: ProgressTarget) {
    this.display = progressDisplay(target);
    this.files = paths.map((path) => {
      const file = this.display.file(basename(path));
      file.phase('prepare');
      return file;
    });
  }

  /** Feeds the SDK's `onProgress`. */
  readonly onProgress = (progress: SdkFileProgress): void => {
    const file = this.files[progress.index];
    if (!file) return;
    if (!this.uploading.has(progress.index)) {
      this.uploading.add(progress.index);
      file.phase('upload', progress.total);
    }
    file.update(progress.sent, progress.total);
  };

  /** Marks each file done with what its message says, and ends the display. */
  finish(messages: readonly SessionMessage[]): void {
    messages.forEach((message, i) => this.files[i]?.done(describeUpload(message)));
    this.display.stop();
  }

  /** Marks the files not yet done as failed, and ends the display. */
  fail(reason: string, doneCount = 0): void {
    this.files.slice(doneCount).forEach((file) => file.fail(reason));
    this.display.stop();
  }
}

/** `photo 320x200`, `video 1920x1080 12.5 s, 3.0 MiB`, `text/markdown, 1.2 KiB`. */
export function describeUpload(message: SessionMessage): string {
  switch (message.type) {
    case 'photo':
      return `photo ${message.width}x${message.height}`;
    case 'video':
      return `video ${message.width}x${message.height} ${(message.durationMs / 1000).toFixed(1)} s, ${formatBytes(message.size)}`;
    case 'file':
      return `${message.mimeType}, ${formatBytes(message.size)}`;
    default:
      return message.type;
  }
}
