import type { Writable } from 'node:stream';
import type { AttachProgress } from 'happy-session';
import { attachProgressLine } from './attachProgress.js';

/** Shows one attachment's progress on a stream (stderr): redrawn in place on a terminal. */
export interface ProgressPrinter {
  update(progress: AttachProgress): void;
  /** Ends the line (on a terminal) after the last update. */
  done(): void;
}

/**
 * On a terminal, one line redrawn at each update; elsewhere (a CI log), one line per phase, so a
 * log is not flooded with upload steps.
 */
export function progressPrinter(stream: Writable & { isTTY?: boolean }, label: string): ProgressPrinter {
  let last: AttachProgress | undefined;
  let lastPhase: string | undefined;
  return {
    update(progress) {
      last = progress;
      if (stream.isTTY) stream.write(`\r\x1b[2K${label}  ${attachProgressLine(progress)}`);
      else if (progress.phase !== lastPhase) stream.write(`${label}  ${attachProgressLine(progress)}\n`);
      lastPhase = progress.phase;
    },
    done() {
      if (stream.isTTY) stream.write('\n');
      else if (last) stream.write(`${label}  ${attachProgressLine(last)}\n`);
    },
  };
}
