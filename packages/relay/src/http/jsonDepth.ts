/**
 * The deepest nesting of arrays and objects a JSON body may have (docs/relay.md, "Limits"). The
 * relay's wire shapes nest a few levels (their payloads are ciphertext strings); a deeper body is
 * refused before it is parsed, so that parsing a hostile body never holds the process.
 */
export const MAX_JSON_DEPTH = 64;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/**
 * Follows the bracket depth of a JSON text chunk by chunk, as it arrives, in one linear pass:
 * brackets inside strings do not count. Bytes of multi-byte UTF-8 characters are all at least 0x80,
 * so the ASCII bytes it looks for are never part of one. Text that is not JSON is left to the parser
 * to refuse; only the depth is judged here.
 */
export class JsonDepthScan {
  private depth = 0;
  private inString = false;
  private escaped = false;

  constructor(private readonly limit = MAX_JSON_DEPTH) {}

  /** Reads the next chunk; false as soon as the nesting passes the limit (the rest is not read). */
  push(chunk: Uint8Array): boolean {
    for (let i = 0; i < chunk.length; i++) {
      const byte = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (byte === BACKSLASH) this.escaped = true;
        else if (byte === QUOTE) this.inString = false;
      } else if (byte === QUOTE) {
        this.inString = true;
      } else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
        if (++this.depth > this.limit) return false;
      } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) {
        this.depth--;
      }
    }
    return true;
  }
}
