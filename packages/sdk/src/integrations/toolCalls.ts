import type { Scope, ToolCall, ToolCallOptions } from '../stream/builders.js';
import { parseArgsText } from '../stream/argsText.js';
import { writeWhole } from './partText.js';

/** What an adapter is told of one of the framework's tools, by the tool's name. */
export interface AdapterToolInfo {
  /**
   * What the tool does (`read`, `edit`, `execute`, `fetch`, …) for the gate's policy
   * (docs/permissions-policy.md); unknown or left out, the gate treats it as the most dangerous.
   */
  readonly kind?: string;
  /** The call's title from its input; default the tool's name. */
  readonly title?: (input: Readonly<Record<string, unknown>>) => string;
  /**
   * The tool runs a subagent (an AI SDK tool that streams another model, an OpenAI agent as a
   * tool): its call carries this label and the subagent's messages nest in its scope.
   */
  readonly agentTitle?: string;
}

/**
 * The framework's input as the call's arguments: an object as it is, JSON text as what it parses
 * to (read by `parseArgsText()`, which refuses text too large or too deep before it builds
 * anything), anything else as `{ input }`.
 */
export function argsOf(input: unknown): Record<string, unknown> {
  if (typeof input === 'string') {
    let parsed: unknown;
    try {
      parsed = parseArgsText(input);
    } catch (error) {
      if (error instanceof SyntaxError) return { input };
      throw error;
    }
    return argsOf(parsed);
  }
  if (input !== null && typeof input === 'object' && !Array.isArray(input)) {
    return input as Record<string, unknown>;
  }
  return input === undefined ? {} : { input };
}

/** Starts the session's call for one of the framework's tool calls. */
export function startCall(
  scope: Scope,
  toolName: string,
  input: unknown,
  info: AdapterToolInfo | undefined,
): ToolCall {
  const args = argsOf(input);
  const options: ToolCallOptions = {
    toolName,
    args,
    ...(info?.title ? { title: info.title(args) } : {}),
    ...(info?.kind !== undefined ? { kind: info.kind } : {}),
    ...(info?.agentTitle !== undefined ? { agentTitle: info.agentTitle } : {}),
  };
  return scope.toolCall(options);
}

/** A tool's output as the text shown inside its call: strings as they are, other values as JSON. */
export function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (output === undefined) return '';
  try {
    return JSON.stringify(output, null, 2) ?? String(output);
  } catch {
    return String(output);
  }
}

/**
 * Ends `call` with the tool's output written inside it (as a code block), unless it has ended
 * already: a denied call was ended by the gate. A subagent's call shows its subagent's messages,
 * not the output again.
 */
export function endWithOutput(call: ToolCall, output: unknown): void {
  if (call.ended) return;
  const text = outputText(output);
  if (call.agentTitle === undefined && text.trim() !== '') {
    writeWhole(call.scope(), '```\n' + text.trimEnd() + '\n```');
  }
  call.end();
}

/** Ends `call` as failed, unless it has ended already. */
export function endFailed(call: ToolCall, error: unknown): void {
  if (call.ended) return;
  call.end({ error: errorText(error) });
}

/** A thrown value as one line of text. */
export function errorText(error: unknown): string {
  if (error instanceof Error) return error.message || error.name;
  return typeof error === 'string' && error !== '' ? error : outputText(error) || 'failed';
}
