import type { PermissionRequestMessage } from 'happy-session/protocol';
import { previewSummary } from 'happy-session/internal';

/** How many lines of a preview a listing shows (`answer`, `run --ask --preview`, a transcript). */
const LISTED_LINES = 80;

/**
 * A permission request's preview as indented lines (docs/sandbox.md, "What the person sees"): the
 * summary today's app shows too, cut to `maxLines`; none for a request without a preview.
 */
export function previewLines(request: PermissionRequestMessage, maxLines = LISTED_LINES): string[] {
  if (request.preview === undefined) return [];
  const lines = previewSummary(request.preview).split('\n');
  const shown =
    lines.length > maxLines
      ? [...lines.slice(0, maxLines - 1), `… ${lines.length - maxLines + 1} more lines`]
      : lines;
  return shown.map((l) => (l === '' ? '' : `  ${l}`));
}
