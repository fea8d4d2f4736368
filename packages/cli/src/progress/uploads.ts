import { basename } from 'node:path';
import type { FileProgress as SdkFileProgress } from 'happy-session/user';
import type { SessionMessage } from 'happy-session';
import { formatBytes } from '../output.js';
import { progressDisplay } from './fileProgress.js';
import type { FileProgress, ProgressDisplay, ProgressTarget } from './fileProgress.js';

/**
 * The files of one `send --file` or `attach`, each with its bar or lines: the SDK's phases (probe,
 * compress when a photo or video is fitted, encrypt, upload), then what it became.
 */
export class UploadProgress {
  private readonly display: ProgressDisplay;
  private readonly files: FileProgress[];
  private readonly phases: string[];

  constructor(paths: readonly string[], target: ProgressTarget) {
    this.display = progressDisplay(target);
    this.phases = paths.map(() => 'probe');
    this.files = paths.map((path) => {
      const file = this.display.file(basename(path));
      // The SDK's first phase: shown at once, before its first report.
      file.phase('probe');
      return file;
    });
  }

  /**
   * Feeds the SDK's `onProgress`: each of its phases (probe, compress when a photo or video is
   * fitted to the server's limit, encrypt, upload) becomes the file's phase; compress and upload
   * move the bar.
   */
  readonly onProgress = (progress: SdkFileProgress): void => {
    const file = this.files[progress.index];
    if (!file) return;
    if (this.phases[progress.index] !== progress.phase) {
      this.phases[progress.index] = progress.phase;
      file.phase(progress.phase, progress.phase === 'upload' ? progress.total : undefined);
    }
    if (progress.phase === 'upload') file.update(progress.sent, progress.total);
    else if (progress.phase === 'compress' && progress.fraction !== undefined)
      file.update(Math.round(progress.fraction * 100), 100);
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
