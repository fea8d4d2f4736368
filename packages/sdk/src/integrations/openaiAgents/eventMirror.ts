import type { RunItem, RunStreamEvent } from '@openai/agents';
import type { Scope, ToolCall } from '../../stream/builders.js';
import type { CallRegistry } from '../callRegistry.js';
import { writeWhole } from '../partText.js';
import type { AdapterToolInfo } from '../toolCalls.js';
import { endFailed, endWithOutput, errorText, outputText, startCall } from '../toolCalls.js';

/** The framework's default text for a tool that threw (its `errorFunction` when none is given). */
export const DEFAULT_TOOL_ERROR = 'An error occurred while running the tool. Please try again.';

/** What the mirror is told of the tools. */
export interface MirrorTools {
  readonly info: Readonly<Record<string, AdapterToolInfo>>;
  /** Whether a tool's output says it failed; default: it is the framework's default error text. */
  readonly isError: (output: unknown) => boolean;
}

type Raw = Record<string, unknown>;

/**
 * Mirrors an OpenAI Agents run's stream events into a scope (docs/integrations.md, "What each
 * stream becomes"): each assistant message and reasoning item whole (the run's items, not its raw
 * deltas), each tool call as the session's call with its arguments, ended once by its output, a
 * generated image as a photo, and a handoff as a call whose scope holds the new agent's messages
 * until the run ends.
 */
export class AgentsEventMirror {
  private scope: Scope;
  private readonly handoffs: ToolCall[] = [];
  private readonly mine = new Set<string>();

  constructor(
    scope: Scope,
    private readonly calls: CallRegistry,
    private readonly tools: MirrorTools,
  ) {
    this.scope = scope;
  }

  /** Where the current agent writes: inside the last handoff's call, or the scope it began in. */
  get current(): Scope {
    return this.scope;
  }

  /** The framework ids of the calls this mirror started. */
  get callIds(): ReadonlySet<string> {
    return this.mine;
  }

  /** Starts the session's call for a tool call the framework made (or returns the known one). */
  callFor(raw: Raw, toolName?: string): ToolCall {
    const id = idOf(raw);
    const known = id !== undefined ? this.calls.get(id) : undefined;
    if (known) return known;
    const name = toolName ?? stringField(raw, 'name') ?? stringField(raw, 'type') ?? 'tool';
    const input = raw.arguments ?? raw.action ?? raw.operation ?? {};
    const call = startCall(this.scope, name, input, this.tools.info[name]);
    if (id !== undefined) {
      this.mine.add(id);
      this.calls.add(id, call);
    }
    return call;
  }

  async event(event: RunStreamEvent): Promise<void> {
    if (event.type !== 'run_item_stream_event') return;
    await this.item(event.item);
  }

  /** Ends the handoffs' calls, innermost first: the run is over. */
  finish(): void {
    for (const call of this.handoffs.reverse()) if (!call.ended) call.end();
    this.handoffs.length = 0;
  }

  private async item(item: RunItem): Promise<void> {
    const raw = item.rawItem as unknown as Raw;
    switch (item.type) {
      case 'message_output_item':
        writeWhole(this.scope, contentText(raw));
        return;
      case 'reasoning_item':
        writeWhole(this.scope, contentText(raw), true);
        return;
      case 'tool_call_item': {
        const call = this.callFor(raw);
        if (raw.type === 'hosted_tool_call' && raw.status === 'completed') await this.hostedOutput(call, raw);
        return;
      }
      case 'tool_call_output_item': {
        const id = idOf(raw);
        const call = id !== undefined ? this.calls.get(id) : undefined;
        if (!call) return;
        const output = item.output ?? raw.output;
        if (this.tools.isError(output)) endFailed(call, outputText(output));
        else endWithOutput(call, shownOutput(output));
        return;
      }
      case 'handoff_output_item': {
        const target = item.targetAgent.name;
        const call = startCall(
          this.scope,
          stringField(raw, 'name') ?? 'handoff',
          {},
          {
            title: () => `Handoff to ${target}`,
            agentTitle: target,
          },
        );
        this.handoffs.push(call);
        this.scope = call.scope();
        return;
      }
      default:
        return;
    }
  }

  /** A hosted tool's output: an image the model generated as a photo, anything else as text. */
  private async hostedOutput(call: ToolCall, raw: Raw): Promise<void> {
    const output = raw.output;
    if (stringField(raw, 'name') === 'image_generation_call' && typeof output === 'string' && output !== '') {
      try {
        await call.scope().attach(Buffer.from(output, 'base64'));
      } catch (error) {
        call.scope().service(`An image the model made could not be sent: ${errorText(error)}`);
      }
      call.end();
      return;
    }
    endWithOutput(call, output);
  }
}

/** The framework's call id of a raw item. */
export function idOf(raw: Raw): string | undefined {
  return stringField(raw, 'callId') ?? stringField(raw, 'id');
}

function stringField(raw: Raw, name: string): string | undefined {
  const value = raw[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The text parts of an assistant message or reasoning item (refusals included), joined. */
function contentText(raw: Raw): string {
  const content = Array.isArray(raw.content) ? (raw.content as Raw[]) : [];
  return content
    .map((c) => (typeof c.text === 'string' ? c.text : typeof c.refusal === 'string' ? c.refusal : ''))
    .filter((t) => t !== '')
    .join('\n\n');
}

/** A function tool's output as shown: the text of a `{ type: 'text', text }` output, else the value. */
function shownOutput(output: unknown): unknown {
  if (output !== null && typeof output === 'object' && (output as Raw).type === 'text') {
    const text = (output as Raw).text;
    if (typeof text === 'string') return text;
  }
  return output;
}
