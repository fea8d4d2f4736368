import { Usage } from '@openai/agents';
import type { Model, ModelRequest, ModelResponse, StreamEvent } from '@openai/agents';

/**
 * A scripted `Model` for OpenAI Agents JS: each call of the model answers the next round of output
 * items (messages and function calls), streamed as the Responses API does (text deltas, then the
 * whole response). A round may be `'hang'`: the model streams a delta, then waits until the run's
 * signal aborts.
 */
export type AgentsRound = readonly Item[] | 'hang';
export type Item =
  | { readonly text: string }
  | { readonly thinking: string }
  | {
      readonly call: string;
      readonly id: string;
      readonly input: Record<string, unknown>;
      /** The arguments' text as the model sends it, when it is not `input` as JSON. */
      readonly raw?: string;
    };

type OutputItem = ModelResponse['output'][number];

function outputOf(items: readonly Item[]): OutputItem[] {
  return items.map((item): OutputItem => {
    if ('text' in item) {
      return {
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: item.text }],
      };
    }
    if ('thinking' in item)
      return { type: 'reasoning', content: [{ type: 'input_text', text: item.thinking }] };
    return {
      type: 'function_call',
      name: item.call,
      callId: item.id,
      arguments: item.raw ?? JSON.stringify(item.input),
      status: 'completed',
    };
  });
}

export interface ScriptedAgentsModel {
  readonly model: Model;
  /** The input of each call of the model, in order. */
  readonly inputs: ModelRequest['input'][];
  readonly signals: (AbortSignal | undefined)[];
}

/** One script shared by every agent of a run (handoffs and agents as tools call it in turn). */
export function scriptedAgentsModel(rounds: readonly AgentsRound[]): ScriptedAgentsModel {
  const inputs: ModelRequest['input'][] = [];
  const signals: (AbortSignal | undefined)[] = [];
  const take = (request: ModelRequest): AgentsRound => {
    const round = rounds[inputs.length];
    inputs.push(request.input);
    signals.push(request.signal);
    if (round === undefined) throw new Error(`the script has no round ${inputs.length - 1}`);
    return round;
  };
  const model: Model = {
    async getResponse(request) {
      const round = take(request);
      if (round === 'hang') throw new Error('a hanging round streams only');
      return { usage: new Usage(), output: outputOf(round), responseId: `response-${inputs.length}` };
    },
    async *getStreamedResponse(request): AsyncIterable<StreamEvent> {
      const round = take(request);
      yield { type: 'response_started' };
      if (round === 'hang') {
        yield { type: 'output_text_delta', delta: 'Working on it' };
        await new Promise<never>((_, reject) => {
          if (request.signal?.aborted) reject(request.signal.reason as Error);
          request.signal?.addEventListener('abort', () => reject(request.signal!.reason as Error), {
            once: true,
          });
        });
        return;
      }
      for (const item of round) {
        if (!('text' in item)) continue;
        for (const word of item.text.match(/\S+\s*/g) ?? []) yield { type: 'output_text_delta', delta: word };
      }
      yield {
        type: 'response_done',
        response: {
          id: `response-${inputs.length}`,
          usage: { requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 },
          output: outputOf(round),
        },
      } as StreamEvent;
    },
  };
  return { model, inputs, signals };
}
