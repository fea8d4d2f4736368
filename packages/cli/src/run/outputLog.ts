import { stripVTControlCharacters } from 'node:util';
import { formatBytes } from '../output.js';
import { EchoFilter } from './echoFilter.js';

/** How much of a command's output goes into its step (docs/cli.md, "Output"). */
export interface OutputLimits {
  /** A batch is written at the latest this long after its first line. */
  readonly flushMs: number;
  /** A batch is written as soon as it holds this many bytes. */
  readonly batchBytes: number;
  /** Bytes of output streamed live; past them only the tail is kept. */
  readonly headBytes: number;
  /** Lines of the tail written when the command ends. */
  readonly tailLines: number;
  /** Longer lines are cut (a minified file, a progress bar without newlines). */
  readonly lineChars: number;
}

export const DEFAULT_OUTPUT_LIMITS: OutputLimits = {
  flushMs: 300,
  batchBytes: 8 * 1024,
  headBytes: 64 * 1024,
  tailLines: 40,
  lineChars: 2_000,
};

/** Lines kept for the error of a failed step. */
const ERROR_LINES = 10;
/** A private key block is written in one batch, up to this size, so the redactor sees it whole. */
const HELD_BLOCK_BYTES = 64 * 1024;

/**
 * One step's output on its way into the stream: split into lines, ANSI escapes removed and
 * carriage-return redraws reduced to what the terminal last showed, echoes of nested steps dropped,
 * batched into fenced text messages, and bounded: the first `headBytes` stream live, after that only
 * the last `tailLines` lines are kept, written with a count of what was left out when it ends.
 */
export class OutputLog {
  /** Lines of nested steps this step's output will echo. */
  readonly echoes = new EchoFilter();
  private partial = '';
  private batch: string[] = [];
  private batchSize = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private streamed = 0;
  private readonly tail: string[] = [];
  private omittedLines = 0;
  private omittedBytes = 0;
  private readonly recent: string[] = [];
  private inKeyBlock = false;
  private finished = false;

  constructor(
    private readonly write: (markdown: string) => void,
    /** The logs of the steps around this one, innermost first. */
    private readonly ancestors: () => readonly OutputLog[],
    private readonly limits: OutputLimits = DEFAULT_OUTPUT_LIMITS,
  ) {}

  /** Takes a chunk of the command's output (decoded text, stdout and stderr alike). */
  push(text: string): void {
    if (this.finished) return;
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    if (this.partial.length > this.limits.lineChars * 4) {
      lines.push(this.partial);
      this.partial = '';
    }
    for (const line of lines) this.line(line);
  }

  /** The last lines of output, for the error of a failed step. */
  lastLines(): readonly string[] {
    return this.recent;
  }

  /** Writes the batch now (before something else goes into the step, such as an attachment). */
  flushNow(): void {
    if (!this.inKeyBlock) this.flush();
  }

  /** Writes what is still held: the last partial line, the batch, and the tail with what was left out. */
  finish(): void {
    if (this.finished) return;
    if (this.partial !== '') this.line(this.partial);
    this.partial = '';
    this.flush();
    this.finished = true;
    if (this.omittedLines > 0) {
      this.write(
        `*… ${this.omittedLines.toLocaleString('en-US')} lines (${formatBytes(this.omittedBytes)}) not shown …*`,
      );
    }
    const tail = withoutCutKeyBlock(this.tail);
    if (tail.length > 0) this.write(fenced(tail));
  }

  private line(raw: string): void {
    const line = cleanLine(raw, this.limits.lineChars);
    if (this.echoes.consume(line)) return;
    for (const ancestor of this.ancestors()) ancestor.echoes.expect(line);
    this.recent.push(line);
    if (this.recent.length > ERROR_LINES) this.recent.shift();
    const bytes = Buffer.byteLength(line) + 1;
    if (this.streamed + this.batchSize + bytes > this.limits.headBytes && !this.inKeyBlock) {
      this.flush();
      this.tail.push(line);
      if (this.tail.length > this.limits.tailLines) {
        this.omittedBytes += Buffer.byteLength(this.tail.shift()!) + 1;
        this.omittedLines++;
      }
      return;
    }
    if (/-----BEGIN [A-Z0-9 ]*PRIVATE KEY/.test(line)) this.inKeyBlock = true;
    if (/-----END [A-Z0-9 ]*PRIVATE KEY/.test(line)) this.inKeyBlock = false;
    this.batch.push(line);
    this.batchSize += bytes;
    const limit = this.inKeyBlock ? HELD_BLOCK_BYTES : this.limits.batchBytes;
    if (this.batchSize >= limit) this.flush();
    else this.timer ??= setTimeout(() => this.flushByTimer(), this.limits.flushMs);
  }

  private flushByTimer(): void {
    this.timer = undefined;
    // A key block is written once its END line is in (or once it is too long to be one).
    if (this.inKeyBlock && this.batchSize < HELD_BLOCK_BYTES) {
      this.timer = setTimeout(() => this.flushByTimer(), this.limits.flushMs);
      return;
    }
    this.flush();
  }

  private flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.batch.length === 0) return;
    this.write(fenced(this.batch));
    this.streamed += this.batchSize;
    this.batch = [];
    this.batchSize = 0;
  }
}

/** What a terminal would show of a line: escapes removed, the text after the last carriage return. */
export function cleanLine(raw: string, maxChars: number): string {
  let line = stripVTControlCharacters(raw.endsWith('\r') ? raw.slice(0, -1) : raw);
  const cr = line.lastIndexOf('\r');
  if (cr !== -1) line = line.slice(cr + 1);
  // Other control characters (bells, backspaces) mean nothing in a transcript.
  line = line.replace(/\p{Cc}/gu, (c) => (c === '\t' ? c : ''));
  return line.length > maxChars ? `${line.slice(0, maxChars)}…` : line;
}

/** Lines as a fenced code block whose fence is longer than any run of backticks inside. */
export function fenced(lines: readonly string[]): string {
  const text = lines.join('\n');
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}\n${text}\n${fence}`;
}

/**
 * The tail may start inside a private key block whose BEGIN line was left out: without it the
 * redactor cannot tell the key's lines from others, so they are dropped up to the END line.
 */
function withoutCutKeyBlock(tail: readonly string[]): readonly string[] {
  const end = tail.findIndex((line) => /-----END [A-Z0-9 ]*PRIVATE KEY/.test(line));
  if (end === -1 || tail.slice(0, end).some((line) => /-----BEGIN [A-Z0-9 ]*PRIVATE KEY/.test(line)))
    return tail;
  return ['[the rest of a private key block, not shown]', ...tail.slice(end + 1)];
}
