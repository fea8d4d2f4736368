import type { FoldedCall, FoldedNode, FoldedSession } from 'happy-session';
import type { SessionMessage } from 'happy-session';
import { formatBytes } from './output.js';
import { previewLines } from './previewLines.js';

const STATUS_MARK: Record<FoldedCall['status'], string> = {
  running: '…',
  'awaiting-permission': '?',
  done: '✓',
  denied: '⊗',
  failed: '✗',
  cancelled: '⊘',
};

/** Said in words where a mark alone is easy to miss: the call is still going. */
const STATUS_WORD: Partial<Record<FoldedCall['status'], string>> = {
  running: 'running',
  'awaiting-permission': 'waiting for permission',
  denied: 'denied',
};

/** Collapses whitespace and cuts to `max` characters. */
export function oneLine(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? flat.slice(0, max - 1) + '…' : flat;
}

/** One line for a message that is not a tool call: who, what, and for media kind, size and dimensions. */
export function describeMessage(message: SessionMessage): string {
  const who = message.role === 'user' ? 'user' : 'agent';
  switch (message.type) {
    case 'text':
      return message.role === 'agent' && message.thinking
        ? `(thinking) ${oneLine(message.text)}`
        : `${who}: ${oneLine(message.text)}`;
    case 'service':
      return `[service] ${oneLine(message.text)}`;
    // The wire gives a photo no byte size; video and file carry theirs.
    case 'photo':
      return `${who} photo ${message.width}x${message.height}, thumbhash ${message.thumbhash} (${message.ref})`;
    case 'video':
      return `${who} video ${message.width}x${message.height}, ${(message.durationMs / 1000).toFixed(1)} s, ${formatBytes(message.size)}, ${message.mimeType} (${message.ref})`;
    case 'file':
      return `${who} file ${message.name}, ${formatBytes(message.size)}, ${message.mimeType} (${message.ref})`;
    case 'permission-request':
      return `permission requested for ${message.toolName}: ${message.options.map((o) => o.label).join(' / ')}`;
    case 'permission-response':
      return `user answered ${message.optionId} for call ${message.callId}`;
    case 'tool-call-end':
      return `end of call ${message.callId}${message.error ? `: ${message.error}` : ''}`;
    case 'plan': {
      const done = message.entries.filter((e) => e.status === 'completed').length;
      const now = message.entries.find((e) => e.status === 'in_progress');
      return `plan: ${done} of ${message.entries.length} done${now ? ` · now: ${oneLine(now.content, 60)}` : ''}`;
    }
    case 'question':
      return `agent asked: ${oneLine(message.title ?? message.questions.map((q) => q.question).join(' / '))}`;
    case 'question-end': {
      const said = Object.values(message.answers ?? {}).map((a) =>
        [...a.options, ...(a.custom !== undefined ? [a.custom] : [])].join(', '),
      );
      return `question ${message.status.replace('_', ' ')}${said.length > 0 ? `: ${oneLine(said.join('; '))}` : ''}`;
    }
    default:
      return `${message.type}`;
  }
}

function renderCall(call: FoldedCall, depth: number, out: string[]): void {
  const pad = '  '.repeat(depth);
  const error = call.end?.error ? ` — ${call.end.error}` : '';
  const state = STATUS_WORD[call.status] ? ` (${STATUS_WORD[call.status]})` : '';
  pushIndented(
    out,
    pad,
    `${STATUS_MARK[call.status]} ${call.start.toolName}: ${oneLine(call.start.title)}${error}${state}`,
  );
  if (call.permission) {
    const { request, response } = call.permission;
    const chosen = response && request.options.find((o) => o.id === response.optionId);
    out.push(
      `${pad}  permission: ${request.options.map((o) => o.label).join(' / ')} → ` +
        (chosen
          ? `${chosen.label} (${chosen.kind})`
          : response
            ? `unknown option ${response.optionId}`
            : call.end
              ? 'not answered'
              : 'waiting'),
    );
    // What the preview showed the person, as `answer` lists it (docs/sandbox.md, "What the person sees").
    for (const line of previewLines(request)) out.push(line === '' ? '' : `${pad}  ${line}`);
  }
  renderNodes(call.children, depth + 1, out);
  for (const group of call.agents) {
    out.push(`${pad}  subagent ${group.title ?? group.agentId}:`);
    renderNodes(group.children, depth + 2, out);
  }
}

/**
 * Pushes `text` at `pad`; the lines after its first (a multi-line error, say) go under it, two
 * further spaces in, so that every line stays under its step.
 */
function pushIndented(out: string[], pad: string, text: string): void {
  const [first = '', ...rest] = text.split(/\r?\n/);
  out.push(`${pad}${first}`);
  for (const line of rest) out.push(`${pad}    ${line}`);
}

function renderNodes(nodes: readonly FoldedNode[], depth: number, out: string[]): void {
  for (const node of nodes) {
    if (node.kind === 'call') renderCall(node, depth, out);
    else pushIndented(out, '  '.repeat(depth), describeMessage(node.message));
  }
}

/**
 * Renders a folded session as plain text: user messages, turns with their status, tool calls with
 * a status mark, nested by `parentId`, subagents under their title, permission answers and media.
 */
export function renderTranscript(session: FoldedSession): string {
  const out: string[] = [];
  let n = 0;
  for (const item of session.timeline) {
    if (item.kind === 'turn') {
      out.push(`turn ${++n} (${item.status})`);
      renderNodes(item.children, 1, out);
    } else {
      out.push(describeMessage(item.message));
    }
  }
  return out.join('\n');
}
