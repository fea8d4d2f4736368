import type { Scope } from '../stream/builders.js';
import { splitText } from '../stream/splitText.js';

/**
 * A framework's streamed text, coalesced into whole messages (docs/integrations.md, "What each stream becomes"): the
 * deltas of one part are kept until the part ends, then written as one `text` (or reasoning)
 * message, in as many records as its size needs. Parts are told apart by the framework's id.
 */
export class PartText {
  private readonly open = new Map<string, { scope: Scope; thinking: boolean; text: string }>();

  /** A part begins (again, if the framework reuses ids: what was kept is written first). */
  start(id: string, scope: Scope, thinking: boolean): void {
    this.end(id);
    this.open.set(id, { scope, thinking, text: '' });
  }

  /** More text of part `id`; a delta without a start starts the part. */
  delta(id: string, scope: Scope, thinking: boolean, text: string): void {
    if (!this.open.has(id)) this.start(id, scope, thinking);
    this.open.get(id)!.text += text;
  }

  /** Part `id` is whole: it is written, unless it is empty. */
  end(id: string): void {
    const part = this.open.get(id);
    if (!part) return;
    this.open.delete(id);
    writeWhole(part.scope, part.text, part.thinking);
  }

  /** Writes every part still open (the stream ended or broke off). */
  endAll(): void {
    for (const id of [...this.open.keys()]) this.end(id);
  }
}

/** Writes `text` as one message (split only where a record cannot hold it); nothing when blank. */
export function writeWhole(scope: Scope, text: string, thinking = false): void {
  if (text.trim() === '') return;
  for (const part of splitText(text)) {
    if (thinking) scope.thinking(part);
    else scope.text(part);
  }
}
