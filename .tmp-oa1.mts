import { Agent, Runner, RunState, setTracingDisabled, tool, Usage, handoff } from '@openai/agents';
import { z } from 'zod';
setTracingDisabled(true);
type Item = any;
function scripted(turns: Item[][]) {
  let i = 0;
  const next = () => turns[Math.min(i++, turns.length - 1)];
  return {
    async getResponse() { return { usage: new Usage(), output: next(), responseId: 'r' + i }; },
    async *getStreamedResponse(req: any) {
      const out = next();
      console.log('MODEL CALL', req.input?.length ?? req.input);
      yield { type: 'response_started' };
      for (const o of out) if (o.type === 'message') for (const c of o.content) { yield { type: 'output_text_delta', delta: c.text.slice(0, 3) }; yield { type: 'output_text_delta', delta: c.text.slice(3) }; }
      yield { type: 'response_done', response: { id: 'r' + i, usage: { requests: 1, inputTokens: 1, outputTokens: 1, totalTokens: 2 }, output: out } };
    },
  };
}
const msg = (text: string) => ({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text }] });
const fc = (name: string, args: object, callId: string) => ({ type: 'function_call', name, arguments: JSON.stringify(args), callId, status: 'completed' });
const bash = tool({ name: 'bash', description: 'run', parameters: z.object({ command: z.string() }), needsApproval: true, execute: async ({ command }) => { console.log('EXEC', command); return `ran ${command}`; } });
const model = scripted([[msg('Hello there.'), fc('bash', { command: 'echo hi' }, 'c1')], [fc('transfer_to_helper', {}, 'h1')], [msg('Helper here.')]]);
const helper = new Agent({ name: 'helper', instructions: 'h', model: model as any });
const agent = new Agent({ name: 'main', instructions: 'x', tools: [bash], handoffs: [helper], model: model as any });
const runner = new Runner({ modelProvider: { getModel: () => model as any } });
let result = await runner.run(agent, 'go', { stream: true });
for await (const e of result) console.log('E1', e.type, (e as any).name ?? '', JSON.stringify((e as any).item?.rawItem ?? (e as any).data ?? (e as any).agent?.name).slice(0, 200));
await result.completed;
console.log('INT', result.interruptions.length, JSON.stringify(result.interruptions[0]?.rawItem));
const saved = result.state.toString();
const state = await RunState.fromString(agent, saved);
const ints = state.getInterruptions();
if (process.argv[2] === 'deny') state.reject(ints[0], { message: 'no way' }); else state.approve(ints[0]);
result = await runner.run(agent, state, { stream: true });
for await (const e of result) console.log('E2', e.type, (e as any).name ?? '', JSON.stringify((e as any).item?.rawItem ?? (e as any).data ?? (e as any).agent?.name).slice(0, 200));
await result.completed;
console.log('FINAL', result.finalOutput, result.lastAgent?.name);
