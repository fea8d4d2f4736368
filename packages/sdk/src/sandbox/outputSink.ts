import { splitText } from '../stream/splitText.js';

/** A batch is written at the latest this long after its first chunk. */
const FLUSH_MS = 250;
/** A batch is written as soon as it holds this many characters. */
const BATCH_CHARS = 8 * 1024;

/**
 * A command's output on its way into the call's scope: batched into fenced text messages, so a
 * chatty command writes a few records rather than one per chunk. `write` failing (the turn ended
 * while the command ran) stops the sink; the output is still on the result.
 */
export class OutputSink {
  private batch = '';
  private timer: ReturnType<typeof setTimeout> | undefined;
  private broken = false;

  constructor(private readonly write: (markdown: string) => void) {}

  push(text: string): void {
    if (this.broken) return;
    this.batch += text;
    if (this.batch.length >= BATCH_CHARS) this.flush();
    else this.timer ??= setTimeout(() => this.flush(), FLUSH_MS);
  }

  /** Writes what is held. */
  flush(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const text = this.batch;
    this.batch = '';
    if (this.broken || text === '') return;
    try {
      for (const part of splitText(fenced(text))) this.write(part);
    } catch {
      this.broken = true;
    }
  }
}

function fenced(text: string): string {
  const fence = text.includes('```') ? '~~~~' : '```';
  return `${fence}\n${text.replace(/\n$/, '')}\n${fence}`;
}
