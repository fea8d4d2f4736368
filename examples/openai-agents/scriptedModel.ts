// The model the example uses without a key: a scripted `Model`. "run <command>" asks for
// run_command; after the tool's output it says what the command printed; anything else it answers
// in words.
import { Usage } from '@openai/agents';
import type { Model, ModelProvider, ModelRequest, ModelResponse, StreamEvent } from '@openai/agents';

type Output = ModelResponse['output'];

function reply(request: ModelRequest, callId: string): Output {
  const items = typeof request.input === 'string' ? [] : request.input;
  const last = items.at(-1) as Record<string, unknown> | undefined;
  if (last?.type === 'function_call_result') {
    const output = last.output as { text?: string } | string;
    return [message(`The command printed:\n\n${typeof output === 'string' ? output : (output.text ?? '')}`)];
  }
  const text =
    typeof request.input === 'string'
      ? request.input
      : (items
          .filter((i) => (i as { role?: string }).role === 'user')
          .map((i) => (i as { content: unknown }).content)
          .map((c) => (typeof c === 'string' ? c : JSON.stringify(c)))
          .at(-1) ?? '');
  const run = /^run (.+)$/s.exec(text.trim());
  if (run) {
    return [
      message('I will run it.'),
      {
        type: 'function_call',
        name: 'run_command',
        callId,
        arguments: JSON.stringify({ command: run[1] }),
        status: 'completed',
      },
    ] as Output;
  }
  return [message(`You said: ${text}. Say "run <command>" and I will run it once you allow it.`)];
}

function message(text: string): Output[number] {
  return {
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text }],
  };
}

export function scriptedModelProvider(): ModelProvider {
  let calls = 0;
  const model: Model = {
    async getResponse(request) {
      return { usage: new Usage(), output: reply(request, `call-${++calls}`) };
    },
    async *getStreamedResponse(request): AsyncIterable<StreamEvent> {
      const output = reply(request, `call-${++calls}`);
      yield { type: 'response_started' };
      yield {
        type: 'response_done',
        response: {
          id: `response-${calls}`,
          usage: { requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 },
          output,
        },
      } as StreamEvent;
    },
  };
  return { getModel: () => model };
}
