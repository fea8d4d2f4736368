import { streamText, tool, stepCountIs } from 'ai';
import { MockLanguageModelV4, convertArrayToReadableStream } from 'ai/test';
import { z } from 'zod';
const usage = { inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 1, text: 1, reasoning: 0 } };
let step = 0;
const model = new MockLanguageModelV4({
  doStream: async (opts) => {
    step++;
    console.log('PROMPT', step, JSON.stringify(opts.prompt.slice(1)));
    const parts = step === 1 ? [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't1' }, { type: 'text-delta', id: 't1', delta: 'Let me ' }, { type: 'text-delta', id: 't1', delta: 'run it.' }, { type: 'text-end', id: 't1' },
      { type: 'tool-call', toolCallId: 'c1', toolName: 'bash', input: JSON.stringify({ command: 'echo hi' }) },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage },
    ] : [
      { type: 'stream-start', warnings: [] },
      { type: 'text-start', id: 't2' }, { type: 'text-delta', id: 't2', delta: 'Done.' }, { type: 'text-end', id: 't2' },
      { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
    ];
    return { stream: convertArrayToReadableStream(parts as any) };
  },
});
const tools = { bash: tool({ inputSchema: z.object({ command: z.string() }), needsApproval: true, execute: async ({ command }) => { console.log('EXEC', command); return `ran ${command}`; } }) };
let messages: any[] = [{ role: 'user', content: 'go' }];
const r1 = streamText({ model, tools, messages, stopWhen: stepCountIs(5) });
const approvals: any[] = [];
for await (const p of r1.fullStream) { console.log('P1', JSON.stringify(p).slice(0, 300)); if (p.type === 'tool-approval-request') approvals.push(p); }
const resp = await r1.response;
console.log('RESP', JSON.stringify(resp.messages));
// edit input
messages = [...messages, ...resp.messages, { role: 'tool', content: approvals.map((a) => ({ type: 'tool-approval-response', approvalId: a.approvalId, approved: process.argv[2] !== 'deny', reason: 'because' })) }];
if (process.argv[2] === 'edit') { for (const m of messages) if (m.role === 'assistant' && Array.isArray(m.content)) for (const c of m.content) if (c.type === 'tool-call') c.input = { command: 'echo edited' }; }
const r2 = streamText({ model, tools, messages, stopWhen: stepCountIs(5) });
for await (const p of r2.fullStream) console.log('P2', JSON.stringify(p).slice(0, 300));
console.log('RESP2', JSON.stringify((await r2.response).messages));
const steps = await r2.steps;
console.log('STEPS2', steps.length, JSON.stringify(steps.map((s) => s.response.messages)));
messages = [...messages, ...(await r2.response).messages, { role: 'user', content: 'again' }];
step = 1;
const r3 = streamText({ model, tools, messages });
for await (const p of r3.fullStream) if (p.type.startsWith('tool')) console.log('P3', JSON.stringify(p).slice(0, 300));
