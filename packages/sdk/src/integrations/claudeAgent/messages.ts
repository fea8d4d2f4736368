/**
 * What the adapter reads of the Claude Agent SDK's messages (`SDKMessage`), written out here so
 * that the SDK's declarations name nothing of the optional peer: a program without it still
 * type-checks (docs/claude-agent.md). Every field is read defensively: a message of a shape this
 * file does not know is skipped, never trusted.
 */

/** Any message of the Claude Agent SDK's `query()` stream, as far as the adapter needs to type it. */
export interface ClaudeMessage {
  /** `assistant`, `user`, `system`, `result`, `stream_event`, … */
  readonly type: string;
}

/** What `query()` returns, as far as the adapter uses it: the stream, and how to stop it. */
export interface ClaudeQuery extends AsyncIterable<ClaudeMessage> {
  /** Stops the current turn of Claude Code (the SDK's `Query.interrupt()`). */
  interrupt?(): Promise<unknown>;
  /** Stops a background task (a subagent) by its id. */
  stopTask?(taskId: string): Promise<unknown>;
  /** Ends the Claude Code process. */
  close?(): void;
}

/** A content block of an assistant or user message, by its kind. */
export type ClaudeBlock =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'thinking'; readonly text: string }
  | { readonly kind: 'tool-use'; readonly id: string; readonly name: string; readonly input: unknown }
  | {
      readonly kind: 'tool-result';
      readonly toolUseId: string;
      readonly text: string;
      readonly isError: boolean;
    }
  | { readonly kind: 'other'; readonly type: string };

/** A message read into what the mirror acts on. */
export type ReadMessage =
  | {
      readonly kind: 'assistant';
      readonly parent: string | undefined;
      readonly blocks: readonly ClaudeBlock[];
      readonly error: string | undefined;
    }
  | { readonly kind: 'user'; readonly parent: string | undefined; readonly blocks: readonly ClaudeBlock[] }
  | { readonly kind: 'init'; readonly sessionId: string | undefined }
  | {
      readonly kind: 'task-started';
      readonly taskId: string;
      readonly toolUseId: string | undefined;
      readonly background: boolean;
    }
  | {
      readonly kind: 'task-ended';
      readonly taskId: string;
      readonly toolUseId: string | undefined;
      readonly status: string;
      readonly summary: string | undefined;
    }
  | { readonly kind: 'compacted' }
  | {
      readonly kind: 'result';
      readonly ok: boolean;
      readonly subtype: string;
      readonly text: string | undefined;
      readonly errors: readonly string[];
    }
  | { readonly kind: 'ignored'; readonly type: string };

type Fields = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const stringOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** Reads one message of the stream. */
export function readMessage(message: ClaudeMessage): ReadMessage {
  const m = message as unknown as Fields;
  const subtype = stringOf(m.subtype);
  switch (m.type) {
    case 'assistant':
    case 'user': {
      const inner = isObject(m.message) ? m.message : {};
      const parent = stringOf(m.parent_tool_use_id) || undefined;
      const blocks = blocksOf(inner.content);
      if (m.type === 'user') {
        // A replayed or synthetic user message is not the model's work: its tool results still end calls.
        return { kind: 'user', parent, blocks: m.isReplay === true ? [] : blocks };
      }
      return { kind: 'assistant', parent, blocks, error: stringOf(m.error) };
    }
    case 'system':
      if (subtype === 'init') return { kind: 'init', sessionId: stringOf(m.session_id) };
      if (subtype === 'compact_boundary') return { kind: 'compacted' };
      if (subtype === 'task_started' && typeof m.task_id === 'string') {
        return {
          kind: 'task-started',
          taskId: m.task_id,
          toolUseId: stringOf(m.tool_use_id),
          background: m.is_backgrounded === true,
        };
      }
      if (subtype === 'task_notification' && typeof m.task_id === 'string') {
        return {
          kind: 'task-ended',
          taskId: m.task_id,
          toolUseId: stringOf(m.tool_use_id),
          status: stringOf(m.status) ?? 'completed',
          summary: stringOf(m.summary),
        };
      }
      return { kind: 'ignored', type: `system/${subtype ?? '?'}` };
    case 'result':
      return {
        kind: 'result',
        ok: subtype === 'success' && m.is_error !== true,
        subtype: subtype ?? 'unknown',
        text: stringOf(m.result),
        errors: Array.isArray(m.errors) ? m.errors.filter((e): e is string => typeof e === 'string') : [],
      };
    default:
      return { kind: 'ignored', type: String(m.type) };
  }
}

function blocksOf(content: unknown): ClaudeBlock[] {
  if (typeof content === 'string') return content.trim() === '' ? [] : [{ kind: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.filter(isObject).map(blockOf);
}

function blockOf(block: Fields): ClaudeBlock {
  const type = stringOf(block.type) ?? '?';
  if (type === 'text' && typeof block.text === 'string') return { kind: 'text', text: block.text };
  if (type === 'thinking' && typeof block.thinking === 'string')
    return { kind: 'thinking', text: block.thinking };
  // tool_use, and the server's and MCP connectors' own calls.
  if (type.endsWith('tool_use') && typeof block.id === 'string' && typeof block.name === 'string') {
    return { kind: 'tool-use', id: block.id, name: block.name, input: block.input };
  }
  if (type.endsWith('tool_result') && typeof block.tool_use_id === 'string') {
    return {
      kind: 'tool-result',
      toolUseId: block.tool_use_id,
      text: resultText(block.content),
      isError: block.is_error === true,
    };
  }
  return { kind: 'other', type };
}

/** A tool result's text: a string as it is, the text blocks of a list joined. */
function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter(isObject)
    .flatMap((part) => (typeof part.text === 'string' ? [part.text] : []))
    .join('\n');
}
