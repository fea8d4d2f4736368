import { MAX_RECORD_BYTES } from './recordSize.js';

/**
 * The default size of one part of {@link splitText}: the record limit less 16 KiB for the rest of
 * the message (ids, time, turn, parent; the v1 envelope), measured as the text's JSON in UTF-8.
 */
export const MAX_TEXT_BYTES = MAX_RECORD_BYTES - 16 * 1024;

/** Options of {@link splitText}. */
export interface SplitTextOptions {
  /** Most bytes of one part, counted as JSON-escaped UTF-8; default {@link MAX_TEXT_BYTES}. */
  readonly maxBytes?: number;
}

/**
 * Splits text too long for one message into parts that each fit one record, in order, so that
 * `parts.join('') === text`: `for (const part of splitText(long)) turn.text(part)`. A part ends
 * after the last line break that leaves it at least half full, else after the last space, else
 * between two characters (never inside a surrogate pair). Sizes count what the record holds: the
 * text's JSON escaping in UTF-8 (docs/transport.md, "Size limit").
 */
export function splitText(text: string, options: SplitTextOptions = {}): string[] {
  const maxBytes = Math.max(8, Math.floor(options.maxBytes ?? MAX_TEXT_BYTES));
  const parts: string[] = [];
  let start = 0;
  while (start < text.length) {
    let bytes = 0;
    let end = start;
    let lastBreak = -1;
    let lastSpace = -1;
    while (end < text.length) {
      const code = text.codePointAt(end)!;
      const width = code > 0xffff ? 2 : 1;
      const size = jsonBytes(code);
      if (bytes + size > maxBytes) break;
      bytes += size;
      end += width;
      if (code === 0x0a) lastBreak = end;
      else if (code === 0x20 || code === 0x09) lastSpace = end;
    }
    if (end >= text.length) {
      parts.push(text.slice(start));
      break;
    }
    const half = start + (end - start) / 2;
    const cut = lastBreak >= half ? lastBreak : lastSpace >= half ? lastSpace : end;
    parts.push(text.slice(start, cut));
    start = cut;
  }
  return parts.length > 0 ? parts : [''];
}

/** Bytes of one code point inside a JSON string in UTF-8 (`JSON.stringify`'s escaping). */
function jsonBytes(code: number): number {
  if (code === 0x22 || code === 0x5c) return 2;
  if (code < 0x20)
    return code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d ? 2 : 6;
  if (code < 0x80) return 1;
  if (code < 0x800) return 2;
  // A lone surrogate is written as \uXXXX.
  if (code >= 0xd800 && code <= 0xdfff) return 6;
  return code <= 0xffff ? 3 : 4;
}
