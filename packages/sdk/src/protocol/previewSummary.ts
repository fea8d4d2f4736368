import type { PermissionPreview, PreviewFile } from './sessionMessage.js';

/** Characters of a preview's summary at most, by default: enough for a phone screen or two. */
export const PREVIEW_SUMMARY_CHARS = 2_000;

/** `20 B`, `3.4 KiB`, `1.2 MiB`. */
export function formatBytes(size: number): string {
  if (size < 1024) return `${size} B`;
  if (size < 1024 * 1024) return `${(size / 1024).toFixed(1)} KiB`;
  return `${(size / 1024 / 1024).toFixed(1)} MiB`;
}

/** `created made.txt (20 B)`: one file of a preview, in a line. */
export function previewFileLine(file: PreviewFile): string {
  return `${file.change} ${file.path} (${formatBytes(file.size)})`;
}

/** `exit 0`, `exit 2`, `ended by a signal`. */
export function previewExitText(preview: PermissionPreview): string {
  return preview.exitCode === null ? 'ended by a signal' : `exit ${preview.exitCode}`;
}

/**
 * A preview as plain text, the one summary the v1 record, `watch` and `answer` show
 * (docs/sandbox.md, "What the person sees"): the files with their sizes and short diffs, the
 * connections tried, the exit status, whether allow lands it or runs the command again for real,
 * and the output's tail. Cut to `maxChars`; the note about a real run comes first, so a cut never loses it.
 */
export function previewSummary(preview: PermissionPreview, maxChars = PREVIEW_SUMMARY_CHARS): string {
  const head: string[] = [
    `Preview (ran on a copy of the workspace, no network): ${previewExitText(preview)}`,
  ];
  head.push(
    preview.applicable
      ? 'On allow, exactly these file changes land.'
      : `Outside the workspace: ${preview.reason ?? 'it cannot be applied'}.`,
  );
  if (preview.files.length === 0) head.push('no file changes');
  for (const file of preview.files) head.push(`  ${previewFileLine(file)}`);
  if (preview.filesOmitted) head.push(`  … and ${preview.filesOmitted} more file(s)`);
  if (preview.network.length > 0) head.push(`network tried (refused): ${preview.network.join(', ')}`);
  if (preview.processesLeft > 0) head.push(`left ${preview.processesLeft} process(es) running (ended)`);
  const diffs = preview.files.flatMap((f) => (f.diff ? [`${f.path}:`, f.diff] : []));
  const tail = preview.outputTail.trimEnd();
  const parts = [
    head.join('\n'),
    ...(diffs.length > 0 ? [diffs.join('\n')] : []),
    ...(tail !== '' ? [`output (tail):\n${tail}`] : []),
  ];
  const text = parts.join('\n\n');
  return text.length > maxChars ? `${text.slice(0, Math.max(0, maxChars - 1))}…` : text;
}
