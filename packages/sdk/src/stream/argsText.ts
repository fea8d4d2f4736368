import { ARGS_BUDGET, invalid, MAX_ARGS_DEPTH, tooLarge } from './frozenArgs.js';

/**
 * The longest JSON text of arguments that is read at all: the budget's worth of characters, each
 * written as a six-character `\uXXXX` escape, plus as much again of blanks. Longer text is refused
 * (`stream.too_large`) from its length alone.
 */
export const MAX_ARGS_TEXT = 8 * ARGS_BUDGET;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LOWER_U = 0x75;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;

/** Characters between tokens that JSON drops: space, tab, line feed, carriage return. */
function blank(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/** Characters of a number token (`-`, `+`, digits, `.`, `e`, `E`): a run of them counts once. */
function numeric(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) ||
    code === 0x2d ||
    code === 0x2b ||
    code === 0x2e ||
    code === 0x65 ||
    code === 0x45
  );
}

/**
 * Tool arguments that arrive as JSON text (an adapter's framework hands them over as a string),
 * parsed only when they can be carried: the text is scanned once, before `JSON.parse` builds
 * anything, counting a lower bound of the JSON the call would write (what `frozenArgs()` counts:
 * a string's characters with each escape as one, a number as one, every bracket, comma and colon)
 * and the nesting. The scan stops and refuses as soon as the count passes the budget
 * (`stream.too_large`) or the nesting passes {@link MAX_ARGS_DEPTH} (`stream.invalid_message`), so a
 * text of a million keys is refused after about the first budget's worth of it, and no object of it
 * is ever built (docs/permissions-policy.md, "What runs is what was shown").
 *
 * Text that is not JSON throws the `SyntaxError` of `JSON.parse`; the scan judges only size and
 * depth.
 */
export function parseArgsText(text: string, what = 'args'): unknown {
  if (text.length > MAX_ARGS_TEXT) throw tooLarge(what);
  let left = ARGS_BUDGET;
  let depth = 0;
  let inString = false;
  let inNumber = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === QUOTE) inString = false;
      else {
        // One written character per character or escape (`\uXXXX` skips its four digits).
        if (code === BACKSLASH) i += text.charCodeAt(i + 1) === LOWER_U ? 5 : 1;
        if (--left < 0) throw tooLarge(what);
      }
      continue;
    }
    if (blank(code)) {
      inNumber = false;
      continue;
    }
    if (numeric(code)) {
      if (inNumber) continue;
      inNumber = true;
    } else {
      inNumber = false;
      if (code === QUOTE) {
        inString = true;
        // Both quotes are counted at the opening one.
        left -= 1;
      } else if (code === OPEN_ARRAY || code === OPEN_OBJECT) {
        if (++depth > MAX_ARGS_DEPTH)
          throw invalid(
            what,
            [],
            `nested deeper than ${MAX_ARGS_DEPTH} levels`,
            `at most ${MAX_ARGS_DEPTH} deep`,
          );
      } else if (code === CLOSE_ARRAY || code === CLOSE_OBJECT) {
        depth--;
      }
    }
    if (--left < 0) throw tooLarge(what);
  }
  return JSON.parse(text) as unknown;
}
