import type { LanguageModelV4CallOptions, LanguageModelV4StreamPart } from '@ai-sdk/provider';
import { MockLanguageModelV4 } from 'ai/test';

/**
 * A scripted model for the AI SDK (its own `MockLanguageModelV4`): each call of the model streams
 * the next round of parts, text split into several deltas as a real model sends it. A round may be
 * `'hang'`: the model streams a first delta, then waits until the call's abort signal fires.
 */
export type Round = readonly Step[] | 'hang';
export type Step =
  | { readonly text: string }
  | { readonly thinking: string }
  | { readonly call: string; readonly id: string; readonly input: Record<string, unknown> }
  | { readonly image: Uint8Array };

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 },
};

/** The parts of one round, as a provider streams them. */
function partsOf(steps: readonly Step[], round: number): LanguageModelV4StreamPart[] {
  const parts: LanguageModelV4StreamPart[] = [{ type: 'stream-start', warnings: [] }];
  let calls = 0;
  steps.forEach((step, i) => {
    const id = `r${round}p${i}`;
    if ('text' in step || 'thinking' in step) {
      const kind = 'text' in step ? 'text' : 'reasoning';
      const whole = 'text' in step ? step.text : step.thinking;
      parts.push({ type: `${kind}-start`, id });
      for (const word of whole.match(/\S+\s*/g) ?? []) parts.push({ type: `${kind}-delta`, id, delta: word });
      parts.push({ type: `${kind}-end`, id });
    } else if ('call' in step) {
      calls++;
      parts.push({
        type: 'tool-call',
        toolCallId: step.id,
        toolName: step.call,
        input: JSON.stringify(step.input),
      });
    } else {
      parts.push({ type: 'file', mediaType: 'image/png', data: { type: 'data', data: step.image } });
    }
  });
  parts.push({
    type: 'finish',
    finishReason: calls > 0 ? { unified: 'tool-calls', raw: 'tool_calls' } : { unified: 'stop', raw: 'stop' },
    usage,
  });
  return parts;
}

export interface ScriptedModel {
  readonly model: MockLanguageModelV4;
  /** The prompts the model was called with, in order. */
  readonly prompts: LanguageModelV4CallOptions['prompt'][];
  /** The abort signals the model was called with. */
  readonly signals: (AbortSignal | undefined)[];
}

export function scriptedModel(rounds: readonly Round[]): ScriptedModel {
  const prompts: LanguageModelV4CallOptions['prompt'][] = [];
  const signals: (AbortSignal | undefined)[] = [];
  const model = new MockLanguageModelV4({
    doStream: async (options) => {
      const round = prompts.length;
      prompts.push(options.prompt);
      signals.push(options.abortSignal);
      const script = rounds[round];
      if (script === undefined) throw new Error(`the script has no round ${round}`);
      if (script === 'hang') return { stream: hanging(options.abortSignal) };
      const parts = partsOf(script, round);
      return {
        stream: new ReadableStream<LanguageModelV4StreamPart>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
      };
    },
  });
  return { model, prompts, signals };
}

/** A stream that sends one delta, then errors with the abort reason once `signal` aborts. */
function hanging(signal: AbortSignal | undefined): ReadableStream<LanguageModelV4StreamPart> {
  return new ReadableStream<LanguageModelV4StreamPart>({
    start(controller) {
      controller.enqueue({ type: 'stream-start', warnings: [] });
      controller.enqueue({ type: 'text-start', id: 'hang' });
      controller.enqueue({ type: 'text-delta', id: 'hang', delta: 'Working on it' });
      signal?.addEventListener('abort', () => controller.error(signal.reason), { once: true });
    },
  });
}
