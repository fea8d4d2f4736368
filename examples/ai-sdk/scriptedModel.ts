// The model the example uses without a key: the AI SDK's own mock model, scripted. "run <command>"
// asks for run_command; after the tool's result (or its denial) it says how it went; anything
// else it answers in words.
import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

export function scriptedModel(): MockLanguageModelV4 {
  let calls = 0;
  return new MockLanguageModelV4({
    doStream: async (options) => ({ stream: streamOf(reply(options.prompt, `call-${++calls}`)) }),
  });
}

type Reply = { text: string } | { text: string; command: string; callId: string };

function reply(prompt: LanguageModelV4CallOptions['prompt'], callId: string): Reply {
  const last = prompt.at(-1);
  if (last?.role === 'tool') {
    const result = last.content.find((p) => p.type === 'tool-result');
    if (result?.output.type === 'execution-denied')
      return { text: `Not run: ${result.output.reason ?? 'denied'}.` };
    const output =
      result?.output.type === 'text' || result?.output.type === 'json' ? result.output.value : '';
    return { text: `The command printed:\n\n${String(output)}` };
  }
  const text =
    last?.role === 'user' ? last.content.map((p) => (p.type === 'text' ? p.text : '')).join('') : '';
  const run = /^run (.+)$/s.exec(text.trim());
  if (run) return { text: 'I will run it.', command: run[1]!, callId };
  return { text: `You said: ${text}. Say "run <command>" and I will run it once you allow it.` };
}

function streamOf(reply: Reply): ReadableStream<LanguageModelV4StreamPart> {
  const parts: LanguageModelV4StreamPart[] = [
    { type: 'stream-start', warnings: [] },
    { type: 'text-start', id: 't' },
  ];
  for (const word of reply.text.match(/\S+\s*/g) ?? [])
    parts.push({ type: 'text-delta', id: 't', delta: word });
  parts.push({ type: 'text-end', id: 't' });
  if ('command' in reply) {
    parts.push({
      type: 'tool-call',
      toolCallId: reply.callId,
      toolName: 'run_command',
      input: JSON.stringify({ command: reply.command }),
    });
  }
  parts.push({
    type: 'finish',
    finishReason:
      'command' in reply ? { unified: 'tool-calls', raw: 'tool_calls' } : { unified: 'stop', raw: 'stop' },
    usage,
  });
  return new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });
}
