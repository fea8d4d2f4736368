/** Bash splits words on space, tab and newline only; nothing else counts as a blank here. */
export const BASH_BLANKS = ' \t\n';

/**
 * `text` without the leading and trailing characters of `blanks` (bash's by default); never
 * `trim()`. Two scans from the ends, so linear in the length whatever the text holds (a regular
 * expression such as `[ \t\n]+$` backtracks over every blank of a long inner run).
 */
export function stripBlanks(text: string, blanks: string = BASH_BLANKS): string {
  let start = 0;
  let end = text.length;
  while (start < end && blanks.includes(text[start]!)) start++;
  while (end > start && blanks.includes(text[end - 1]!)) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}
