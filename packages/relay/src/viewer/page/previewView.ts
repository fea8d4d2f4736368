import './previewView.css';
import type { PermissionRequestMessage } from 'happy-session/protocol';
import { formatBytes, previewExitText } from 'happy-session/internal';
import { h } from './dom.js';

type Preview = NonNullable<PermissionRequestMessage['preview']>;

/**
 * The preview card of a permission request (docs/sandbox.md, "What the person sees"): what the
 * command did when it ran first on a copy of the workspace: the files it would create, change or
 * delete with their sizes and short diffs, the connections it tried, its exit status and output
 * tail, and, when its effect reaches outside the workspace, that allow runs it again for real.
 * Text only (never markup from the agent), and it wraps rather than scrolls sideways on a phone.
 */
export function previewCard(preview: Preview): HTMLElement {
  const files = h('ul', { class: 'preview-files' });
  for (const file of preview.files) {
    files.append(
      h(
        'li',
        { 'data-change': file.change },
        h('span', { class: 'preview-change' }, file.change),
        ' ',
        h('code', { class: 'preview-path' }, file.path),
        ' ',
        h('span', { class: 'preview-size' }, formatBytes(file.size)),
        file.diff !== undefined ? h('pre', { class: 'preview-diff' }, file.diff) : null,
      ),
    );
  }
  const tail = preview.outputTail.trimEnd();
  return h(
    'section',
    { class: 'preview-card', 'data-applicable': String(preview.applicable) },
    h(
      'div',
      { class: 'preview-head' },
      'Preview: ran on a copy of the workspace, no network · ',
      h('span', { class: 'preview-exit' }, previewExitText(preview)),
    ),
    h(
      'div',
      { class: 'preview-verdict' },
      preview.applicable
        ? 'On allow, exactly these file changes land.'
        : `Outside the workspace: ${preview.reason ?? 'it cannot be applied'}.`,
    ),
    preview.files.length > 0 ? files : h('div', { class: 'preview-none' }, 'No file changes.'),
    preview.filesOmitted
      ? h('div', { class: 'preview-omitted' }, `… and ${preview.filesOmitted} more file(s)`)
      : null,
    preview.network.length > 0
      ? h('div', { class: 'preview-network' }, `Network tried (refused): ${preview.network.join(', ')}`)
      : null,
    preview.processesLeft > 0
      ? h('div', { class: 'preview-processes' }, `Left ${preview.processesLeft} process(es) running (ended).`)
      : null,
    tail !== ''
      ? h('details', { class: 'preview-output' }, h('summary', {}, 'Output (tail)'), h('pre', {}, tail))
      : null,
  );
}
