import { splitText } from './splitText.js';

/**
 * Most bytes (JSON-escaped UTF-8) of a call's `error` text that its `tool-call-end` holds: a quarter
 * of a record, so the end fits whatever else the record carries (docs/transport.md, "Size limit").
 */
export const MAX_END_TEXT_BYTES = 256 * 1024;

/**
 * A call's error text as its `tool-call-end` holds it: whole when it fits, else its start and a
 * note of how much was cut. `call.error` keeps the whole text for the program.
 */
export function fittedEndText(text: string, maxBytes: number = MAX_END_TEXT_BYTES): string {
  // Six bytes is the widest a UTF-16 unit gets in JSON (`\u0000`): such a text fits as it is.
  if (text.length * 6 <= maxBytes) return text;
  const [head = ''] = splitText(text, { maxBytes });
  if (head.length === text.length) return text;
  return `${head}\n… [${text.length - head.length} of ${text.length} characters cut to fit the record; the program has the whole text in call.error]`;
}

/** The error text of last resort, when even the cut text could not be appended. */
export function unstorableEndText(text: string, why: unknown): string {
  const code = typeof why === 'object' && why !== null && 'code' in why ? String(why.code) : 'error';
  return `[the error text (${text.length} characters) could not be stored: ${code}]`;
}
