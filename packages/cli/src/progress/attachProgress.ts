import type { AttachProgress } from 'happy-session';
import { formatBytes } from '../output.js';

const BAR_WIDTH = 20;

/**
 * One line for an attachment's progress bar: the phase, a bar where the phase can tell how far it
 * is (compressing, uploading), and the sizes, the original's and, once known, the one sent:
 *
 * ```
 * probe     ····················  31.2 MiB
 * compress  ███████░░░░░░░░░░░░░  35%  31.2 MiB → …
 * encrypt   ····················  31.2 MiB → 9.7 MiB
 * upload    ██████████████░░░░░░  7.1 / 9.7 MiB  (31.2 MiB → 9.7 MiB)
 * ```
 *
 * `run --attach` draws it on stderr (docs/cli.md, "Progress").
 */
export function attachProgressLine(progress: AttachProgress): string {
  const phase = progress.phase.padEnd(9);
  const sizes = sizesOf(progress);
  switch (progress.phase) {
    case 'compress': {
      const fraction = progress.fraction;
      if (fraction === undefined) return `${phase} ${idle()}  ${sizes}`;
      return `${phase} ${bar(fraction)}  ${Math.round(fraction * 100)}%  ${sizes}`;
    }
    case 'upload': {
      const fraction = progress.total > 0 ? progress.sent / progress.total : 0;
      const counts = `${formatBytes(progress.sent)} / ${formatBytes(progress.total)}`;
      return `${phase} ${bar(fraction)}  ${counts}${progress.finalBytes !== progress.originalBytes ? `  (${sizes})` : ''}`;
    }
    default:
      return `${phase} ${idle()}  ${sizes}`;
  }
}

function sizesOf(progress: AttachProgress): string {
  if (progress.originalBytes === 0) return '';
  const original = formatBytes(progress.originalBytes);
  if (progress.finalBytes === undefined) return progress.phase === 'compress' ? `${original} → …` : original;
  return progress.finalBytes === progress.originalBytes
    ? original
    : `${original} → ${formatBytes(progress.finalBytes)}`;
}

function bar(fraction: number): string {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * BAR_WIDTH);
  return '█'.repeat(filled) + '░'.repeat(BAR_WIDTH - filled);
}

function idle(): string {
  return '·'.repeat(BAR_WIDTH);
}
