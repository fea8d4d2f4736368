import cliProgress from 'cli-progress';
import type { AttachPhase } from 'happy-session';
import { formatBytes } from '../output.js';
import type { Print } from '../output.js';

/**
 * What happens to one file, in order: the SDK's phases (`probe`, `compress` when a photo or video
 * is fitted to the server's limit, `encrypt`, `upload`); both displays show any name.
 */
export type FilePhase = AttachPhase | (string & {});

/** The progress of one file, as a command reports it. */
export interface FileProgress {
  /** Enters a phase; `total` when it counts bytes. */
  phase(name: FilePhase, total?: number): void;
  /** Bytes done in the current phase (of `total`). */
  update(done: number, total: number): void;
  /** The file is through; `summary` says what it became (`text/markdown, 1.2 KiB`). */
  done(summary: string): void;
  /** The file failed. */
  fail(reason: string): void;
}

/** The progress of the files of one command. */
export interface ProgressDisplay {
  file(name: string): FileProgress;
  /** Ends the display (the bars stay on screen). */
  stop(): void;
}

/** Where progress goes: bars on a terminal, plain lines otherwise. */
export interface ProgressTarget {
  /** A terminal to draw bars on (stderr when it is one). */
  readonly stream?: NodeJS.WriteStream | undefined;
  /** Plain lines when there is no terminal (stderr, so stdout stays data). */
  readonly printLine: Print;
}

/**
 * Bars for a terminal (`cli-progress`, one line per file, redrawn in place) or plain lines
 * otherwise: one line per phase and per quarter of the bytes, so a log shows the upload moving
 * without a line per chunk.
 */
export function progressDisplay(target: ProgressTarget): ProgressDisplay {
  return target.stream?.isTTY ? new TerminalBars(target.stream) : new PlainLines(target.printLine);
}

interface BarPayload {
  readonly name: string;
  readonly phase: string;
  readonly amount: string;
}

class TerminalBars implements ProgressDisplay {
  private readonly bars: cliProgress.MultiBar;

  constructor(stream: NodeJS.WriteStream) {
    this.bars = new cliProgress.MultiBar(
      {
        stream,
        format: (options, params, payload: BarPayload) => {
          const bar = cliProgress.Format.BarFormat(params.progress, options);
          return `${payload.name}  ${payload.phase.padEnd(8)} ${bar} ${payload.amount}`;
        },
        barsize: 30,
        hideCursor: true,
        clearOnComplete: false,
        autopadding: true,
        fps: 10,
      },
      cliProgress.Presets.shades_classic,
    );
  }

  file(name: string): FileProgress {
    const bar = this.bars.create(1, 0, { name, phase: 'probe', amount: '' } satisfies BarPayload);
    const set = (value: number, total: number, phase: string, amount: string): void => {
      bar.setTotal(Math.max(total, 1));
      bar.update(value, { name, phase, amount } satisfies BarPayload);
    };
    let phase = 'probe';
    return {
      phase: (next, total) => {
        phase = next;
        set(0, total ?? 1, next, total !== undefined ? `0 B / ${formatBytes(total)}` : '');
      },
      update: (done, total) => set(done, total, phase, `${formatBytes(done)} / ${formatBytes(total)}`),
      done: (summary) => set(1, 1, 'done', summary),
      fail: (reason) => set(0, 1, 'failed', reason),
    };
  }

  stop(): void {
    this.bars.stop();
  }
}

class PlainLines implements ProgressDisplay {
  constructor(private readonly print: Print) {}

  file(name: string): FileProgress {
    let phase = '';
    let quarter = -1;
    return {
      phase: (next, total) => {
        phase = next;
        quarter = -1;
        this.print(`${name}: ${next}${total !== undefined ? ` (${formatBytes(total)})` : ''}`);
      },
      update: (done, total) => {
        const now = total > 0 ? Math.floor((done / total) * 4) : 4;
        if (now <= quarter) return;
        quarter = now;
        this.print(
          `${name}: ${phase} ${Math.round((done / Math.max(total, 1)) * 100)}% of ${formatBytes(total)}`,
        );
      },
      done: (summary) => this.print(`${name}: done, ${summary}`),
      fail: (reason) => this.print(`${name}: failed, ${reason}`),
    };
  }

  stop(): void {
    // Nothing stays open.
  }
}
