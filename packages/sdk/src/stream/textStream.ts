import { SdkError } from '../errors.js';
import { isSdkError } from '../errors.js';
import type { Delivery } from './types.js';

/** Timers a {@link TextStream} waits with; default the global `setTimeout` / `clearTimeout`. */
export interface TextStreamTimers {
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Options of `scope.textStream()` (docs/streaming.md). */
export interface TextStreamOptions {
  /** `true` writes reasoning (`thinking: true`) messages. */
  readonly thinking?: boolean;
  /**
   * Held text is written once no delta came for this long, so a pause shows what came before it;
   * default {@link DEFAULT_IDLE_MS}. `Infinity` waits for a boundary, the size bound or the end.
   */
  readonly idleMs?: number;
  /** A message is written once it holds this many characters, cut at a line break or a space; default {@link DEFAULT_MAX_CHARS}. */
  readonly maxChars?: number;
  /** The timers of the idle window (tests inject fake ones). */
  readonly timers?: TextStreamTimers;
}

/** How long a stream holds text that no delta follows, by default. */
export const DEFAULT_IDLE_MS = 1_500;
/** The most characters one streamed message holds, by default. */
export const DEFAULT_MAX_CHARS = 4_000;

/**
 * Text an LLM writes delta by delta, appended as a few complete `text` messages rather than one per
 * delta (docs/streaming.md): a message is written when a paragraph ends (a blank line outside a
 * code fence), when no delta came for `idleMs`, when it reaches `maxChars`, and by {@link end}.
 * The messages, joined, are exactly the text written, in order.
 *
 * A stop of the turn (the app's stop, `turn.abort()`) ends the stream: what it holds is written and
 * later writes are dropped (`write` says so by returning false). So do the end of its call or turn,
 * which write what it holds before their own end.
 */
export interface TextStream extends AsyncDisposable {
  /** Adds a delta. Returns false once the stream has ended (stopped, or {@link end} called): nothing is written then. */
  write(delta: string): boolean;
  /** Writes what is held now as one message, whatever the boundary. */
  flush(): void;
  /**
   * Writes what is held and ends the stream; resolves when every message it wrote is stored.
   * Ending twice returns the first promise.
   */
  end(): Promise<void>;
  /** Writes every delta of `source`, then {@link end}s; a stop of the turn stops reading `source`. */
  consume(source: AsyncIterable<string> | Iterable<string>): Promise<void>;
  /** True once the stream has ended. */
  readonly ended: boolean;
  /** Everything written into it so far. */
  readonly text: string;
  /** The `text` messages it has appended, in order, as their deliveries. */
  readonly deliveries: readonly Delivery[];
}

/** What a stream needs of its scope. */
export interface TextStreamTarget {
  /** Appends one message of `text`; throws when the scope has closed. */
  append(text: string): Delivery;
  /** The turn's stop. */
  readonly signal: AbortSignal;
  /** Called once when the stream ends, so its turn forgets it. */
  onEnded(): void;
}

/** A line that opens or closes a fenced code block (CommonMark: up to three spaces in). */
const FENCE = /^ {0,3}(```|~~~)/;

const defaultTimers: TextStreamTimers = {
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** The {@link TextStream} behind `scope.textStream()`. */
export class TextStreamWriter implements TextStream {
  private held = '';
  private written = '';
  /** Whether the text written so far (the held part included) is inside a code fence. */
  private inFence = false;
  /** Where in `held` the fence scan resumes; `held` before it has been scanned. */
  private scanned = 0;
  /** Offset in `held` just past the last paragraph boundary found, 0 for none. */
  private boundary = 0;
  private timer: unknown;
  private ending: Promise<void> | undefined;
  private done = false;
  private readonly sent: Delivery[] = [];
  private readonly idleMs: number;
  private readonly maxChars: number;
  private readonly timers: TextStreamTimers;
  private readonly onStop = (): void => void this.end();

  constructor(
    private readonly target: TextStreamTarget,
    options: TextStreamOptions = {},
  ) {
    this.idleMs = options.idleMs ?? DEFAULT_IDLE_MS;
    this.maxChars = Math.max(16, Math.floor(options.maxChars ?? DEFAULT_MAX_CHARS));
    if (!(this.idleMs > 0)) {
      throw new SdkError(
        'stream.invalid_options',
        `idleMs must be positive; got ${String(options.idleMs)}.`,
        {
          hint: 'leave it out for the default, or pass Infinity to wait for a boundary',
        },
      );
    }
    this.timers = options.timers ?? defaultTimers;
    if (target.signal.aborted) this.done = true;
    else target.signal.addEventListener('abort', this.onStop, { once: true });
  }

  get ended(): boolean {
    return this.done;
  }

  get text(): string {
    return this.written + this.held;
  }

  get deliveries(): readonly Delivery[] {
    return this.sent;
  }

  write(delta: string): boolean {
    if (this.done) return false;
    if (typeof delta !== 'string') {
      throw new SdkError('stream.invalid_message', `A text delta must be a string; got ${typeof delta}.`, {
        hint: 'pass the delta text the model produced',
      });
    }
    if (delta === '') return true;
    this.held += delta;
    this.scan();
    if (this.boundary > 0) this.cut(this.boundary);
    while (this.held.length >= this.maxChars) this.cut(sizeCut(this.held, this.maxChars));
    this.restartIdle();
    return !this.done;
  }

  flush(): void {
    if (this.held !== '') this.cut(this.held.length);
  }

  end(): Promise<void> {
    this.ending ??= this.finish();
    return this.ending;
  }

  async consume(source: AsyncIterable<string> | Iterable<string>): Promise<void> {
    try {
      for await (const delta of source) if (!this.write(delta)) break;
    } finally {
      await this.end();
    }
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.end();
  }

  private async finish(): Promise<void> {
    this.stopIdle();
    this.target.signal.removeEventListener('abort', this.onStop);
    if (!this.done) this.flush();
    this.done = true;
    this.target.onEnded();
    await Promise.all(this.sent);
  }

  /**
   * Reads the complete lines held since the last scan: a fence line (```` ``` ```` or `~~~`)
   * opens or closes a code block, and a blank line outside one ends a paragraph. `scanned` always
   * sits at the start of a line.
   */
  private scan(): void {
    const text = this.held;
    let start = this.scanned;
    for (let end = text.indexOf('\n', start); end >= 0; end = text.indexOf('\n', start)) {
      const line = text.slice(start, end);
      if (FENCE.test(line)) this.inFence = !this.inFence;
      else if (!this.inFence && line.trim() === '' && text.slice(0, start).trim() !== '') {
        this.boundary = end + 1;
      }
      start = end + 1;
    }
    this.scanned = start;
  }

  /** Appends the first `at` characters held as one message. */
  private cut(at: number): void {
    const part = this.held.slice(0, at);
    this.held = this.held.slice(at);
    this.scanned = Math.max(0, this.scanned - at);
    this.boundary = this.boundary > at ? this.boundary - at : 0;
    if (part === '') return;
    try {
      this.sent.push(this.target.append(part));
      this.written += part;
    } catch (error) {
      // The scope closed under the stream (its call or turn ended): nothing more can be written.
      if (!isSdkError(error)) throw error;
      this.held = '';
      this.done = true;
      this.stopIdle();
      this.target.onEnded();
    }
  }

  private restartIdle(): void {
    this.stopIdle();
    if (this.done || this.held === '' || !Number.isFinite(this.idleMs)) return;
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      if (!this.done) this.flush();
    }, this.idleMs);
  }

  private stopIdle(): void {
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/** Where to cut text over the size bound: after its last line break, else space, in the second half; else at the bound. */
function sizeCut(text: string, max: number): number {
  const window = text.slice(0, max);
  const lineBreak = window.lastIndexOf('\n');
  if (lineBreak >= max / 2) return lineBreak + 1;
  const space = window.lastIndexOf(' ');
  if (space >= max / 2) return space + 1;
  // Never between the two halves of a surrogate pair.
  const code = text.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}
