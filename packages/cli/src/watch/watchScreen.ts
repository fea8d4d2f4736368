import type { PermissionRequestMessage } from 'happy-session/protocol';
import type { FoldedSession } from 'happy-session';
import { oneLine, renderTranscript } from '../transcript.js';
import { planLines } from './planLines.js';
import { previewLines } from '../previewLines.js';

/** Everything the watch screen shows. */
export interface WatchScreenState {
  readonly sessionId: string;
  readonly title: string | undefined;
  readonly serverUrl: string;
  readonly fold: FoldedSession;
  /** From the server's `activity` events (docs/wire.md §2.3); undefined until the first one. */
  readonly activity: { readonly active: boolean; readonly thinking: boolean } | undefined;
  /** Records that did not decrypt or validate. */
  readonly unreadable: number;
  /** The request the number keys answer, if any. */
  readonly prompt: PermissionRequestMessage | undefined;
  /** Further requests waiting behind it. */
  readonly waiting: number;
  /** The latest status lines (answers and what became of them), oldest first. */
  readonly status: readonly string[];
}

/** Terminal size; undefined fields mean "no limit" (not a terminal). */
export interface ScreenSize {
  readonly rows?: number | undefined;
  readonly columns?: number | undefined;
}

const RULE = '─'.repeat(40);
/** Lines of the prompt's preview at most: the transcript keeps the rest of the screen. */
const PREVIEW_LINES = 14;

function header(state: WatchScreenState): string[] {
  const activity = state.activity
    ? state.activity.active
      ? state.activity.thinking
        ? 'active, thinking'
        : 'active'
      : 'inactive'
    : 'activity unknown';
  const unreadable = state.unreadable > 0 ? ` · ${state.unreadable} unreadable records` : '';
  const plan = planLines(state.fold.plan);
  return [
    `happy-session watch · ${state.title ?? '(untitled)'} · ${state.sessionId}`,
    `${state.serverUrl} · ${activity}${unreadable}`,
    RULE,
    ...(plan.length > 0 ? [...plan, RULE] : []),
  ];
}

function footer(state: WatchScreenState): string[] {
  const lines = [RULE];
  const prompt = state.prompt;
  if (prompt) {
    lines.push(`Permission requested: ${prompt.toolName} — ${oneLine(prompt.title)}`);
    if (prompt.args && Object.keys(prompt.args).length > 0)
      lines.push(`  args: ${oneLine(JSON.stringify(prompt.args))}`);
    lines.push(...previewLines(prompt, PREVIEW_LINES));
    lines.push('  ' + prompt.options.map((o, i) => `${i + 1}) ${o.label}`).join('   '));
    if (state.waiting > 0) lines.push(`  (${state.waiting} more waiting)`);
  }
  lines.push(...state.status);
  const keys = prompt ? `1-${Math.min(prompt.options.length, 9)} answer · q quit` : 'q quit';
  lines.push(`Keys: ${keys}`);
  return lines;
}

/**
 * The watch screen as lines: a header (title, id, server, activity, and the agent's current plan
 * as a checklist), the transcript of the folded
 * session (its newest lines when it does not fit), and a footer with the permission prompt the
 * number keys answer and the status of the latest answers. Lines are cut to the terminal width so
 * nothing wraps.
 */
export function renderWatchScreen(state: WatchScreenState, size: ScreenSize = {}): string[] {
  const top = header(state);
  const bottom = footer(state);
  const body = renderTranscript(state.fold)
    .split('\n')
    .filter((l) => l !== '');
  if (body.length === 0) body.push('(no messages yet)');
  let shown = body;
  if (size.rows !== undefined) {
    const room = Math.max(1, size.rows - top.length - bottom.length);
    if (body.length > room) {
      const hidden = body.length - (room - 1);
      shown = [`… ${hidden} earlier lines`, ...body.slice(body.length - (room - 1))];
    }
  }
  const lines = [...top, ...shown, ...bottom];
  const width = size.columns;
  return width === undefined ? lines : lines.map((l) => (l.length > width ? l.slice(0, width - 1) + '…' : l));
}
