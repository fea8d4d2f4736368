/**
 * A test-side model of what today's Happy app shows of a session's records: its normaliser, its
 * reducer (results, nesting, permissions) and its compact row labels, in the three orders the app
 * reads records. Written from the measured facts in docs/wire.md §6.6 (no app code): it is the
 * yardstick for the v1 encoder, so each rule below names the fact it models.
 */

/** How the app gets the records: one at a time as they arrive, a batch oldest first, or a reload. */
export type ReadingOrder = 'live' | 'catch-up' | 'reload';
export const READING_ORDERS: readonly ReadingOrder[] = ['live', 'catch-up', 'reload'];

/** The newest this many records come first when a session is opened (§6.6, "Reading orders"). */
const RELOAD_PAGE = 100;

/** A decrypted record as the app reads it from the server. */
export interface AppRecord {
  readonly record: unknown;
  readonly seq: number;
  /** The server's time: the order of legacy records (docs/wire.md §5.4). */
  readonly createdAt?: number;
}

/** The part of agentState the app reads for permissions (docs/wire.md §4.3). */
export interface AppAgentState {
  readonly requests?: Record<string, unknown>;
  readonly completedRequests?: Record<string, unknown>;
  /** The agent's questions: read by {@link appForms} (happyAppForms.ts). */
  readonly communications?: Record<string, unknown>;
  readonly completedCommunications?: Record<string, unknown>;
}

export { appForms } from './happyAppForms.js';
export type { AppForm, AppFormQuestion, AppFormOption } from './happyAppForms.js';

/** How a `file` tool call is drawn: always an image box over the bytes at `ref`. */
export interface ImageBox {
  readonly ref: string;
  readonly caption: string;
  readonly width: number;
  readonly height: number;
}

/** One item of a `TodoWrite` checklist, as the app's todo schema reads it. */
export interface AppTodo {
  readonly content: string;
  readonly status: 'pending' | 'in_progress' | 'completed';
  readonly priority?: 'high' | 'medium' | 'low';
  readonly id?: string;
}

/** A tool call as the app shows it. */
export interface AppTool {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly input: Record<string, unknown>;
  /** The compact row's label. */
  readonly label: string;
  readonly state: 'running' | 'completed' | 'error' | 'denied' | 'pending';
  /** The tool's own result: what the tap-through screen shows as "Output" or "Error". */
  readonly result: { readonly output: unknown; readonly isError: boolean } | undefined;
  /** Child tool calls shown in the tap-through screen (only `Task` / `Agent` render them). */
  readonly children: readonly AppTool[];
  readonly image?: ImageBox;
  /** A `TodoWrite` card's checklist: its input's `todos`, else its result's `newTodos`. */
  readonly checklist?: readonly AppTodo[];
}

/** One row of the chat. */
export type AppRow =
  | { readonly kind: 'user-text'; readonly text: string }
  | { readonly kind: 'agent-text'; readonly text: string; readonly thinking: boolean }
  | { readonly kind: 'status'; readonly text: string }
  | { readonly kind: 'tool'; readonly tool: AppTool };

/** What the app shows after reading every record in one order. */
export interface AppScreen {
  readonly rows: readonly AppRow[];
  /** Every tool call on screen: top-level rows and the children lists, in row order. */
  readonly tools: readonly AppTool[];
  /** Records the app refused or dropped without a trace. */
  readonly dropped: number;
  /**
   * The session's todo list: the `newTodos` of the newest `TodoWrite` result that is not an error
   * (by the result record's time), emptied by a `Context was reset` status; undefined when none.
   */
  readonly todos: readonly AppTodo[] | undefined;
}

type Item =
  | { kind: 'user-text'; key: number; text: string }
  | { kind: 'agent-text'; key: number; text: string; thinking: boolean; parent: string | null }
  | { kind: 'status'; key: number; text: string }
  | {
      kind: 'tool-call';
      key: number;
      id: string;
      name: string;
      description: string | null;
      input: Record<string, unknown>;
      parent: string | null;
    }
  | { kind: 'tool-result'; key: number; callId: string; output: unknown; isError: boolean };

interface ToolState {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
  readonly input: Record<string, unknown>;
  result: { output: unknown; isError: boolean } | undefined;
  readonly children: ToolState[];
}

type Slot =
  | { kind: 'user-text'; key: number; text: string }
  | { kind: 'agent-text'; key: number; text: string; thinking: boolean }
  | { kind: 'status'; key: number; text: string }
  | { kind: 'tool'; key: number; tool: ToolState };

const SUBAGENT = /^[0-9a-z]{2,32}$/;
const TURN_INVISIBLE = new Set(['turn-start', 'turn-end', 'start', 'stop']);
const ACP_PROVIDERS = new Set(['claude', 'codex', 'gemini', 'opencode']);

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The app's view of one record: zero or more items, or `undefined` when it drops the record. */
function normalise(stored: AppRecord): Item[] | undefined {
  const { record } = stored;
  if (!isObject(record) || !isObject(record.content)) return undefined;
  const { content } = record;
  if (record.role === 'session') {
    const envelope = isObject(content.data) && content.type === 'session' ? content.data : content;
    return normaliseEnvelope(envelope);
  }
  const key = stored.createdAt ?? stored.seq;
  if (record.role === 'user') {
    return content.type === 'text' && typeof content.text === 'string'
      ? [{ kind: 'user-text', key, text: content.text }]
      : undefined;
  }
  if (record.role !== 'agent') return undefined;
  if (content.type === 'event' && isObject(content.data)) {
    const data = content.data;
    if (data.type === 'message' && typeof data.message === 'string') {
      return data.message === 'Turn started' ? [] : [{ kind: 'status', key, text: data.message }];
    }
    return [];
  }
  if (content.type === 'acp' && typeof content.provider === 'string' && isObject(content.data)) {
    if (!ACP_PROVIDERS.has(content.provider)) return undefined;
    const data = content.data;
    if (data.type === 'tool-result' && typeof data.callId === 'string' && typeof data.id === 'string') {
      return [
        {
          kind: 'tool-result',
          key,
          callId: data.callId,
          output: data.output,
          isError: data.isError === true,
        },
      ];
    }
    return undefined;
  }
  return undefined;
}

/** §6.6 "Envelopes": turn required on agent envelopes, subagent shape checked, markers invisible. */
function normaliseEnvelope(envelope: Record<string, unknown>): Item[] | undefined {
  const ev = envelope.ev;
  if (!isObject(ev) || typeof ev.t !== 'string' || typeof envelope.time !== 'number') return undefined;
  if (typeof envelope.id !== 'string') return undefined;
  const subagent = envelope.subagent;
  if (subagent !== undefined && (typeof subagent !== 'string' || !SUBAGENT.test(subagent))) return undefined;
  const parent = typeof subagent === 'string' ? subagent : null;
  const key = envelope.time;
  if (envelope.role === 'agent' && typeof envelope.turn !== 'string') return undefined;
  if (TURN_INVISIBLE.has(ev.t)) return [];
  switch (ev.t) {
    case 'text':
      if (envelope.role === 'user') return [{ kind: 'user-text', key, text: String(ev.text) }];
      return [{ kind: 'agent-text', key, text: String(ev.text), thinking: ev.thinking === true, parent }];
    case 'service':
      return envelope.role === 'agent'
        ? [{ kind: 'agent-text', key, text: String(ev.text), thinking: false, parent }]
        : [];
    case 'tool-call-start':
      // `title` is ignored; `description` is the tool's description, `args` its input.
      return [
        {
          kind: 'tool-call',
          key,
          id: String(ev.call),
          name: typeof ev.name === 'string' && ev.name !== '' ? ev.name : 'unknown',
          description: typeof ev.description === 'string' ? ev.description : null,
          input: isObject(ev.args) ? ev.args : {},
          parent,
        },
      ];
    case 'tool-call-end':
      // Cannot carry a result: whatever else it holds, the result is null.
      return [{ kind: 'tool-result', key, callId: String(ev.call), output: null, isError: false }];
    case 'file': {
      // A completed tool call named `file`; mimeType is stripped.
      const input: Record<string, unknown> = { ref: ev.ref, name: ev.name, size: ev.size };
      if (isObject(ev.image)) input.image = ev.image;
      return [
        { kind: 'tool-call', key, id: envelope.id, name: 'file', description: null, input, parent },
        { kind: 'tool-result', key, callId: envelope.id, output: null, isError: false },
      ];
    }
    default:
      return undefined;
  }
}

/** Reads `records` in `order` with `agentState` and returns what the app shows. */
export function appReads(
  records: readonly AppRecord[],
  agentState: AppAgentState,
  order: ReadingOrder,
): AppScreen {
  const reducer = new Reducer(order);
  const sorted = [...records].sort((a, b) => a.seq - b.seq);
  for (const batch of batchesOf(sorted, order)) reducer.read(batch);
  return reducer.screen(agentState);
}

function batchesOf(records: readonly AppRecord[], order: ReadingOrder): AppRecord[][] {
  if (order === 'live') return records.map((r) => [r]);
  if (order === 'catch-up') return [[...records]];
  // Reload: pages of the newest records first, each read newest first.
  const pages: AppRecord[][] = [];
  for (let end = records.length; end > 0; end -= RELOAD_PAGE) {
    pages.push(records.slice(Math.max(0, end - RELOAD_PAGE), end).reverse());
  }
  return pages;
}

class Reducer {
  private readonly slots: Slot[] = [];
  private readonly tools = new Map<string, ToolState>();
  private readonly topLevel = new Set<string>();
  /** The reducer's `latestTodos`: the list and the time of the result it came from. */
  private todos: { list: AppTodo[]; time: number } | undefined;
  dropped = 0;

  constructor(private readonly order: ReadingOrder) {}

  /** One batch: calls and texts in batch order, then the results (the first a call receives wins). */
  read(batch: readonly AppRecord[]): void {
    const results: Extract<Item, { kind: 'tool-result' }>[] = [];
    for (const stored of batch) {
      const items = normalise(stored);
      if (items === undefined) {
        this.dropped += 1;
        continue;
      }
      for (const item of items) {
        if (item.kind === 'tool-result') results.push(item);
        else this.place(item);
      }
    }
    // A result whose call is not known by the end of its batch is lost: the call spins forever.
    for (const result of results) {
      const tool = this.tools.get(result.callId);
      if (tool && tool.result === undefined) {
        tool.result = { output: result.output, isError: result.isError };
        if (tool.name === 'TodoWrite' && !result.isError) this.takeTodos(result.output, result.key);
      }
    }
  }

  /** The app keeps a `TodoWrite` result's `newTodos` as the session's list when it is valid and newer. */
  private takeTodos(output: unknown, time: number): void {
    const list = isObject(output) ? todoList(output.newTodos) : undefined;
    if (list && (this.todos === undefined || time > this.todos.time)) this.todos = { list, time };
  }

  /**
   * §6.6 "Nesting": a child links to its parent only through `subagent`, resolved against the calls
   * read so far; one whose parent is not known yet shows at top level. (A UUID-shaped reference
   * would wait for its parent, but the session format refuses UUIDs as `subagent`.)
   */
  private place(item: Exclude<Item, { kind: 'tool-result' }>): void {
    const parentRef = 'parent' in item ? item.parent : null;
    const parent = parentRef === null ? undefined : this.findParent(parentRef);
    if (parent) this.attach(parent, item);
    else this.addTopLevel(item);
  }

  private findParent(ref: string): ToolState | undefined {
    const direct = this.tools.get(ref);
    if (direct) return direct;
    for (const tool of this.tools.values()) if (tool.input.sessionSubagent === ref) return tool;
    return undefined;
  }

  private attach(parent: ToolState, item: Exclude<Item, { kind: 'tool-result' }>): void {
    // In live order a nested call that gets children of its own is also shown at top level.
    if (this.order === 'live' && !this.topLevel.has(parent.id) && this.isChild(parent.id)) {
      this.topLevel.add(parent.id);
      this.slots.push({ kind: 'tool', key: Number.MAX_SAFE_INTEGER, tool: parent });
    }
    // Texts inside a parent are never shown; calls are its children.
    if (item.kind !== 'tool-call') return;
    if (this.tools.has(item.id)) return;
    parent.children.push(this.toolOf(item));
  }

  private addTopLevel(item: Exclude<Item, { kind: 'tool-result' }>): void {
    switch (item.kind) {
      case 'tool-call': {
        if (this.tools.has(item.id)) return;
        const tool = this.toolOf(item);
        this.topLevel.add(tool.id);
        this.slots.push({ kind: 'tool', key: item.key, tool });
        return;
      }
      case 'agent-text':
        this.slots.push({ kind: 'agent-text', key: item.key, text: item.text, thinking: item.thinking });
        return;
      case 'status':
        // The app empties the todo list at this status line, and still shows the line.
        if (item.text === 'Context was reset') this.todos = { list: [], time: item.key };
        this.slots.push(item);
        return;
      default:
        this.slots.push(item);
    }
  }

  private toolOf(item: Extract<Item, { kind: 'tool-call' }>): ToolState {
    const tool: ToolState = {
      id: item.id,
      name: item.name,
      description: item.description,
      input: item.input,
      result: undefined,
      children: [],
    };
    this.tools.set(tool.id, tool);
    return tool;
  }

  private isChild(id: string): boolean {
    for (const tool of this.tools.values()) if (tool.children.some((c) => c.id === id)) return true;
    return false;
  }

  /** §6.6 "Permissions": agentState decides denied and pending, and each entry has a top-level row. */
  screen(agentState: AppAgentState): AppScreen {
    const permissions = permissionsOf(agentState);
    for (const [callId, permission] of permissions) {
      if (this.topLevel.has(callId)) continue;
      const existing = this.tools.get(callId);
      const tool: ToolState = existing ?? {
        id: callId,
        name: permission.tool,
        description: null,
        input: permission.arguments,
        result: undefined,
        children: [],
      };
      this.topLevel.add(callId);
      this.slots.push({ kind: 'tool', key: permission.createdAt, tool });
    }
    const rows: AppRow[] = [];
    const tools: AppTool[] = [];
    const render = (state: ToolState): AppTool => {
      const shown: AppTool = {
        id: state.id,
        name: state.name,
        description: state.description,
        input: state.input,
        label: compactLabel(state.name, state.description, state.input),
        state: stateOf(state, permissions.get(state.id)),
        result: state.result,
        children: [],
        ...(state.name === 'file' ? { image: imageBox(state.input) } : {}),
        ...(state.name === 'TodoWrite' ? checklistOf(state) : {}),
      };
      tools.push(shown);
      if (state.name === 'Task' || state.name === 'Agent') {
        (shown.children as AppTool[]).push(...state.children.map(render));
      }
      return shown;
    };
    const ordered = this.slots.map((slot, index) => ({ slot, index }));
    ordered.sort((a, b) => a.slot.key - b.slot.key || a.index - b.index);
    for (const { slot } of ordered) {
      if (slot.kind === 'tool') rows.push({ kind: 'tool', tool: render(slot.tool) });
      else if (slot.kind === 'agent-text')
        rows.push({ kind: 'agent-text', text: slot.text, thinking: slot.thinking });
      else rows.push({ kind: slot.kind, text: slot.text });
    }
    return { rows, tools, dropped: this.dropped, todos: this.todos?.list };
  }
}

interface Permission {
  readonly tool: string;
  readonly arguments: Record<string, unknown>;
  readonly createdAt: number;
  readonly status: 'pending' | 'approved' | 'denied' | 'canceled';
}

/** Entries keyed by call id, or by request id with `toolUseId` naming the call. */
function permissionsOf(agentState: AppAgentState): Map<string, Permission> {
  const out = new Map<string, Permission>();
  const add = (key: string, value: unknown, pending: boolean): void => {
    if (!isObject(value)) return;
    const callId = typeof value.toolUseId === 'string' ? value.toolUseId : key;
    const status = pending ? 'pending' : value.status;
    if (status !== 'pending' && status !== 'approved' && status !== 'denied' && status !== 'canceled') return;
    out.set(callId, {
      tool: typeof value.tool === 'string' ? value.tool : 'unknown',
      arguments: isObject(value.arguments) ? value.arguments : {},
      createdAt: typeof value.createdAt === 'number' ? value.createdAt : 0,
      status,
    });
  };
  for (const [key, value] of Object.entries(agentState.completedRequests ?? {})) add(key, value, false);
  // An id in both counts as completed (docs/wire.md §4.3).
  for (const [key, value] of Object.entries(agentState.requests ?? {})) {
    const callId = isObject(value) && typeof value.toolUseId === 'string' ? value.toolUseId : key;
    if (!out.has(callId)) add(key, value, true);
  }
  return out;
}

function stateOf(tool: ToolState, permission: Permission | undefined): AppTool['state'] {
  if (permission?.status === 'denied' || permission?.status === 'canceled') return 'denied';
  if (permission?.status === 'pending' && tool.result === undefined) return 'pending';
  if (tool.result === undefined) return 'running';
  return tool.result.isError ? 'error' : 'completed';
}

const DETAIL_FIELDS = ['file_path', 'target_file', 'path', 'target_directory', 'pattern', 'url'] as const;

/**
 * §6.6 "The label": a detail from the first of the input's path-like fields (a terminal tool's
 * command for `Bash`), else the description; the description alone when it differs from that
 * detail, else the formatted tool name and the detail.
 */
export function compactLabel(
  name: string,
  description: string | null,
  input: Record<string, unknown>,
): string {
  const described = description?.trim() ?? '';
  let detail = '';
  if (name === 'Bash' && typeof input.command === 'string') detail = input.command.trim();
  for (const field of DETAIL_FIELDS) {
    if (detail !== '') break;
    const value = input[field];
    if (typeof value === 'string' && value.trim() !== '') detail = value.trim();
  }
  if (detail === '') detail = described;
  if (described !== '' && described !== detail) return described;
  const formatted = formatToolName(name);
  return detail === '' ? formatted : `${formatted}: ${detail}`;
}

function formatToolName(name: string): string {
  return name
    .replace(/[_-]+/g, ' ')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}

/** §6.6 "Files and media": min(width, 280) wide, the image's aspect or 4:3, at most 360 high. */
function imageBox(input: Record<string, unknown>): ImageBox {
  const image = isObject(input.image) ? input.image : undefined;
  const imageWidth = typeof image?.width === 'number' ? image.width : 280;
  const imageHeight = typeof image?.height === 'number' ? image.height : (imageWidth * 3) / 4;
  const width = Math.min(imageWidth, 280);
  const height = Math.min((width * imageHeight) / imageWidth, 360);
  return { ref: String(input.ref), caption: String(input.name), width, height };
}

const TODO_STATUSES = new Set(['pending', 'in_progress', 'completed']);
const TODO_PRIORITIES = new Set(['high', 'medium', 'low']);

/** The app's todo list schema: every item `{content, status, priority?, id?}`, else nothing. */
function todoList(value: unknown): AppTodo[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const list: AppTodo[] = [];
  for (const item of value as unknown[]) {
    if (!isObject(item) || typeof item.content !== 'string' || !TODO_STATUSES.has(String(item.status)))
      return undefined;
    if (item.priority !== undefined && !TODO_PRIORITIES.has(String(item.priority))) return undefined;
    if (item.id !== undefined && typeof item.id !== 'string') return undefined;
    list.push({
      content: item.content,
      status: item.status as AppTodo['status'],
      ...(item.priority !== undefined ? { priority: item.priority as AppTodo['priority'] } : {}),
      ...(item.id !== undefined ? { id: item.id as string } : {}),
    });
  }
  return list;
}

/** What the `TodoWrite` view draws: the input's `todos` first, else the result's `newTodos`. */
function checklistOf(tool: ToolState): { checklist?: AppTodo[] } {
  const fromInput = todoList(tool.input.todos);
  if (fromInput) return { checklist: fromInput };
  const output = tool.result?.output;
  const fromResult = isObject(output) ? todoList(output.newTodos) : undefined;
  return fromResult ? { checklist: fromResult } : {};
}
