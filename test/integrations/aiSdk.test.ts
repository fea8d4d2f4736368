import { stepCountIs, streamText, tool } from 'ai';
import type { ModelMessage } from 'ai';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { aiSdkBridge } from 'happy-session/ai';
import { commandExecutor } from 'happy-session/sandbox';
import { expectV2Invariants } from '../helpers/invariants.js';
import { until } from '../helpers/until.js';
import { scriptedModel } from './aiScript.js';
import type { Round } from './aiScript.js';
import { onRelay, transcript } from './onRelay.js';
import type { OnRelay } from './onRelay.js';
import { turnEndings } from './turnEndings.js';

/**
 * The Vercel AI SDK adapter with the real framework (`streamText`, tools with `needsApproval`) and
 * its own scripted model, on a relay with real sockets; the person answers with the app's RPC.
 */
let relay: OnRelay;
beforeEach(async () => {
  relay = await onRelay();
});
afterEach(async () => {
  await relay.close();
});

/** A `bash` tool the framework asks approval for; records what it ran. */
function bashTool(ran: string[]) {
  return tool({
    description: 'Runs a shell command',
    inputSchema: z.object({ command: z.string() }),
    needsApproval: true,
    execute: async ({ command }) => {
      ran.push(command);
      return `ran: ${command}`;
    },
  });
}

const prompt: ModelMessage[] = [{ role: 'user', content: 'list the files' }];
const callsBash: Round[] = [
  [{ text: 'I will list the files.' }, { call: 'bash', id: 'call-1', input: { command: 'ls' } }],
  [{ text: 'Here they are.' }],
];

describe('happy-session/ai', () => {
  it('an approval from the app runs the tool once; the stream reads back as the framework produced it', async () => {
    const { model, prompts } = scriptedModel(callsBash);
    const ran: string[] = [];
    const tools = { bash: bashTool(ran) };
    const bridge = aiSdkBridge(relay.session, { tools: { bash: { kind: 'execute' } } });
    const requested = relay.next('permission-request');
    const turn = bridge.run((call) => streamText({ model, tools, stopWhen: stepCountIs(5), ...call }), {
      messages: prompt,
    });
    const request = await requested;
    expect(await relay.answer(request.callId, { approved: true })).toMatchObject({ status: 'applied' });
    const result = await turn;

    expect(result.status).toBe('completed');
    expect(ran).toEqual(['ls']);
    // The model's second call saw the tool's result.
    expect(JSON.stringify(prompts[1])).toContain('ran: ls');
    const messages = await relay.readBack();
    expectV2Invariants(messages);
    expect(transcript(messages)).toEqual([
      'text: I will list the files.',
      'call bash {"command":"ls"}',
      '  text: ```\nran: ls\n```',
      'end',
      'text: Here they are.',
      'turn completed',
    ]);
    // The conversation handed back holds the call's result: the next turn runs on it.
    const next = scriptedModel([[{ text: 'Again?' }]]);
    const again = await bridge.run((call) => streamText({ model: next.model, tools, ...call }), {
      messages: [...result.messages, { role: 'user', content: 'thanks' }],
    });
    expect(again.status).toBe('completed');
    expect(ran).toEqual(['ls']);
  });

  it('a denial does not run the tool, and the model gets the reason the person gave', async () => {
    const { model, prompts } = scriptedModel(callsBash);
    const ran: string[] = [];
    const tools = { bash: bashTool(ran) };
    const bridge = aiSdkBridge(relay.session);
    const requested = relay.next('permission-request');
    const turn = bridge.run((call) => streamText({ model, tools, stopWhen: stepCountIs(5), ...call }), {
      messages: prompt,
    });
    const request = await requested;
    await relay.answer(request.callId, { approved: false, decision: 'denied', reason: 'not in this folder' });
    const result = await turn;

    expect(ran).toEqual([]);
    expect(result.status).toBe('completed');
    expect(JSON.stringify(prompts[1])).toContain('not in this folder');
    const messages = await relay.readBack();
    expectV2Invariants(messages);
    const lines = transcript(messages);
    expect(lines.slice(0, 2)).toEqual(['text: I will list the files.', 'call bash {"command":"ls"}']);
    expect(lines[2]).toMatch(/^end ! /);
    expect(lines.slice(3)).toEqual(['text: Here they are.', 'turn completed']);
  });

  it('a request nobody answers times out as the gate says: denied, or the turn cancelled', async () => {
    const denied = scriptedModel(callsBash);
    const ran: string[] = [];
    const tools = { bash: bashTool(ran) };
    const denying = aiSdkBridge(relay.session, { approval: { timeoutMs: 50 } });
    const first = await denying.run(
      (call) => streamText({ model: denied.model, tools, stopWhen: stepCountIs(5), ...call }),
      { messages: prompt },
    );
    expect(first.status).toBe('completed');
    expect(JSON.stringify(denied.prompts[1])).toContain('execution-denied');

    const cancelled = scriptedModel(callsBash);
    const cancelling = aiSdkBridge(relay.session, { approval: { timeoutMs: 50, onTimeout: 'cancel' } });
    const second = await cancelling.run((call) => streamText({ model: cancelled.model, tools, ...call }), {
      messages: prompt,
    });
    expect(second.status).toBe('cancelled');
    expect(cancelled.prompts).toHaveLength(1);
    expect(ran).toEqual([]);
    expectV2Invariants(await relay.readBack());
  });

  it("the person's edited input is what the tool runs", async () => {
    const { model } = scriptedModel(callsBash);
    const ran: string[] = [];
    const tools = { bash: bashTool(ran) };
    const bridge = aiSdkBridge(relay.session);
    const requested = relay.next('permission-request');
    const turn = bridge.run((call) => streamText({ model, tools, stopWhen: stepCountIs(5), ...call }), {
      messages: prompt,
    });
    const request = await requested;
    await relay.answer(request.callId, { approved: true, updatedInput: { command: 'ls -la' } });
    const result = await turn;

    expect(ran).toEqual(['ls -la']);
    expect(result.status).toBe('completed');
  });

  it('a tool that throws ends its call failed, with the error, and the model gets the error', async () => {
    await relay.close();
    relay = await onRelay({ rules: { allow: ['read_file'] } });
    const { model, prompts } = scriptedModel([
      [{ call: 'read_file', id: 'call-f', input: { path: 'missing.txt' } }],
      [{ text: 'No such file.' }],
    ]);
    const tools = {
      read_file: tool({
        inputSchema: z.object({ path: z.string() }),
        execute: async ({ path }): Promise<string> => {
          throw new Error(`ENOENT: ${path}`);
        },
      }),
    };
    const bridge = aiSdkBridge(relay.session);
    const result = await bridge.run(
      (call) => streamText({ model, tools, stopWhen: stepCountIs(5), ...call }),
      {
        messages: prompt,
      },
    );

    expect(result.status).toBe('completed');
    expect(JSON.stringify(prompts[1])).toContain('ENOENT: missing.txt');
    const messages = await relay.readBack();
    expectV2Invariants(messages);
    expect(transcript(messages)).toEqual([
      'call read_file {"path":"missing.txt"}',
      'end ! ENOENT: missing.txt',
      'text: No such file.',
      'turn completed',
    ]);
  });

  it('an image the model made becomes a photo in the turn', async () => {
    const png = await sharp({ create: { width: 4, height: 3, channels: 3, background: '#c33' } })
      .png()
      .toBuffer();
    const { model } = scriptedModel([[{ text: 'Here is a red square.' }, { image: new Uint8Array(png) }]]);
    const result = await aiSdkBridge(relay.session).run((call) => streamText({ model, ...call }), {
      messages: prompt,
    });

    expect(result.status).toBe('completed');
    const messages = await relay.readBack();
    expectV2Invariants(messages);
    expect(transcript(messages)).toEqual(['text: Here is a red square.', 'photo 4x3', 'turn completed']);
  });

  it("the gate's own rules answer first: a tool allowed by rule runs without asking anyone", async () => {
    await relay.close();
    relay = await onRelay({ rules: { allow: ['list_files'] } });
    const { model } = scriptedModel([
      [{ call: 'list_files', id: 'call-l', input: { path: '.' } }],
      [{ text: 'Two files.' }],
    ]);
    const ran: string[] = [];
    const tools = {
      list_files: tool({
        inputSchema: z.object({ path: z.string() }),
        needsApproval: true,
        execute: async ({ path }) => {
          ran.push(path);
          return 'a b';
        },
      }),
    };
    const bridge = aiSdkBridge(relay.session, { tools: { list_files: { kind: 'read' } } });
    const result = await bridge.run(
      (call) => streamText({ model, tools, stopWhen: stepCountIs(5), ...call }),
      {
        messages: prompt,
      },
    );

    expect(result.status).toBe('completed');
    expect(ran).toEqual(['.']);
    const messages = await relay.readBack();
    expectV2Invariants(messages);
    expect(messages.some((m) => m.type === 'permission-response' && m.role === 'user')).toBe(false);
    expect(transcript(messages)).toEqual([
      'call list_files {"path":"."}',
      '  text: ```\na b\n```',
      'end',
      'text: Two files.',
      'turn completed',
    ]);
  });

  it("the app's stop mid-stream aborts the framework's run and the turn ends cancelled", async () => {
    const { model, signals } = scriptedModel(['hang']);
    const bridge = aiSdkBridge(relay.session);
    const started = relay.next('turn-start');
    const turn = bridge.run((call) => streamText({ model, ...call }), { messages: prompt });
    await started;
    await until(() => signals.length === 1);
    await relay.stop();
    const result = await turn;

    expect(result.status).toBe('cancelled');
    expect(signals[0]?.aborted).toBe(true);
    const messages = await relay.readBack();
    expectV2Invariants(messages);
    expect(transcript(messages)).toEqual(['text: Working on it', 'turn cancelled']);
  });

  it("the app's stop while a call waits for approval cancels it: the tool never runs", async () => {
    const { model, prompts } = scriptedModel(callsBash);
    const ran: string[] = [];
    const tools = { bash: bashTool(ran) };
    const bridge = aiSdkBridge(relay.session);
    const requested = relay.next('permission-request');
    const turn = bridge.run((call) => streamText({ model, tools, ...call }), { messages: prompt });
    await requested;
    await relay.stop();
    const result = await turn;

    expect(result.status).toBe('cancelled');
    expect(ran).toEqual([]);
    expect(prompts).toHaveLength(1);
    const lines = transcript(await relay.readBack());
    expect(lines.at(-2)).toMatch(/^end ! /);
    expect(lines.at(-1)).toBe('turn cancelled');
  });

  // Every way a turn can end leaves a conversation the framework takes: a second prompt completes
  // (issue 39, item 3), and a denial is an answer, the turn going on, unless the person stopped.
  const endings = turnEndings((method, params) =>
    relay.app.call(relay.session.id, method, params, relay.key),
  );
  it.each(endings)('after $name while a call waits, a second prompt completes', async ({ end, status }) => {
    const { model } = scriptedModel(callsBash);
    const ran: string[] = [];
    const tools = { bash: bashTool(ran) };
    const bridge = aiSdkBridge(relay.session, { tools: { bash: { kind: 'execute' } } });
    const requested = relay.next('permission-request');
    const turn = bridge.run((call) => streamText({ model, tools, stopWhen: stepCountIs(5), ...call }), {
      messages: prompt,
    });
    await end((await requested).callId);
    const first = await turn;
    expect(first.status).toBe(status);
    expect(ran).toEqual([]);

    const next = scriptedModel([[{ text: 'What else?' }]]);
    const second = await bridge.run((call) => streamText({ model: next.model, tools, ...call }), {
      messages: [...first.messages, { role: 'user', content: 'never mind, say hi' }],
    });
    expect(second).toMatchObject({ status: 'completed' });
    expect(second.error).toBeUndefined();
    // The model heard that the call did not run.
    expect(JSON.stringify(next.prompts[0])).toContain('execution-denied');
    const lines = transcript(await relay.readBack());
    expect(lines.slice(-2)).toEqual(['text: What else?', 'turn completed']);
    expect(lines.filter((l) => l.startsWith('turn '))).toEqual([`turn ${status}`, 'turn completed']);
  });

  it('after a stop mid-stream and after a request that times out cancelling, a second prompt completes', async () => {
    const hang = scriptedModel(['hang']);
    const bridge = aiSdkBridge(relay.session);
    const started = relay.next('turn-start');
    const stopped = bridge.run((call) => streamText({ model: hang.model, ...call }), { messages: prompt });
    await started;
    await until(() => hang.signals.length === 1);
    await relay.stop();
    const first = await stopped;
    expect(first.status).toBe('cancelled');

    const ran: string[] = [];
    const tools = { bash: bashTool(ran) };
    const timed = scriptedModel(callsBash);
    const cancelling = aiSdkBridge(relay.session, { approval: { timeoutMs: 50, onTimeout: 'cancel' } });
    const second = await cancelling.run((call) => streamText({ model: timed.model, tools, ...call }), {
      messages: [...first.messages, { role: 'user', content: 'list the files' }],
    });
    expect(second.status).toBe('cancelled');

    const next = scriptedModel([[{ text: 'Hello.' }]]);
    const third = await bridge.run((call) => streamText({ model: next.model, tools, ...call }), {
      messages: [...second.messages, { role: 'user', content: 'say hi' }],
    });
    expect(third.status).toBe('completed');
    expect(ran).toEqual([]);
  });

  it("a subagent's stream nests under the call that runs it", async () => {
    const main = scriptedModel([
      [{ call: 'research', id: 'call-r', input: { topic: 'otters' } }],
      [{ text: 'Otters hold hands.' }],
    ]);
    const sub = scriptedModel([[{ thinking: 'Looking it up.' }, { text: 'They hold hands while asleep.' }]]);
    const bridge = aiSdkBridge(relay.session, {
      tools: { research: { kind: 'read', agentTitle: 'Researcher' } },
    });
    const tools = {
      research: tool({
        description: 'Asks the researcher',
        inputSchema: z.object({ topic: z.string() }),
        execute: ({ topic }, { toolCallId, abortSignal }) =>
          bridge.subagent(toolCallId, streamText({ model: sub.model, prompt: topic, abortSignal }), {
            signal: abortSignal,
          }),
      }),
    };
    const result = await bridge.run(
      (call) => streamText({ model: main.model, tools, stopWhen: stepCountIs(5), ...call }),
      {
        messages: prompt,
      },
    );

    expect(result.status).toBe('completed');
    const messages = await relay.readBack();
    expectV2Invariants(messages);
    expect(transcript(messages)).toEqual([
      'call research {"topic":"otters"} [Researcher]',
      '  thinking: Looking it up.',
      '  text: They hold hands while asleep.',
      'end',
      'text: Otters hold hands.',
      'turn completed',
    ]);
    const call = messages.find((m) => m.type === 'tool-call-start')!;
    const nested = messages.filter((m) => m.type === 'text' && m.parentId === call.callId);
    expect(nested).toHaveLength(2);
    // Both carry the one subagent's id, which the call's own messages do not.
    expect(new Set(nested.map((m) => m.agentId)).size).toBe(1);
    expect(nested[0]!.agentId).toBeDefined();
    expect(call.agentId).toBeUndefined();
  });
});

describe('happy-session/ai: runContext() for commandExecutor()', () => {
  it("an approved call's command runs through commandExecutor; the app's stop kills it with what it started", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ai-run-context-'));
    const pidFile = join(dir, 'child.pid');
    const { model } = scriptedModel([
      [
        {
          call: 'bash',
          id: 'call-1',
          input: { command: `sleep 30 & echo $! > ${pidFile}; wait` },
        },
      ],
      [{ text: 'Done.' }],
    ]);
    const bridge = aiSdkBridge(relay.session, { tools: { bash: { kind: 'execute' } } });
    const execute = commandExecutor({ unsandboxed: true, cwd: dir, streamOutput: false });
    const tools = {
      bash: tool({
        description: 'Runs a shell command',
        inputSchema: z.object({ command: z.string() }),
        needsApproval: true,
        execute: async ({ command }, { toolCallId, abortSignal }) =>
          (await execute({ command }, await bridge.runContext(toolCallId, { signal: abortSignal }))).output,
      }),
    };
    const requested = relay.next('permission-request');
    const turn = bridge.run((call) => streamText({ model, tools, stopWhen: stepCountIs(5), ...call }), {
      messages: prompt,
    });
    const request = await requested;
    await relay.answer(request.callId, { approved: true });
    await until(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', {
      what: 'the background child',
    });
    const child = Number(readFileSync(pidFile, 'utf8'));
    // Positive control: the background child runs until the stop.
    expect(alive(child)).toBe(true);
    await relay.stop();
    expect((await turn).status).toBe('cancelled');
    await until(() => !alive(child), { what: 'the end of the background child' });
    rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a call the person was not asked about: integration.not_approved', async () => {
    const { model } = scriptedModel([
      [{ call: 'bash', id: 'call-1', input: { command: 'true' } }],
      [{ text: 'Done.' }],
    ]);
    const bridge = aiSdkBridge(relay.session, { tools: { bash: { kind: 'execute' } } });
    const refusals: unknown[] = [];
    const tools = {
      bash: tool({
        description: 'Runs a shell command',
        inputSchema: z.object({ command: z.string() }),
        execute: async (_input, { toolCallId }) => {
          await bridge.runContext(toolCallId).catch((error: unknown) => refusals.push(error));
          return 'not run';
        },
      }),
    };
    const result = await bridge.run(
      (call) => streamText({ model, tools, stopWhen: stepCountIs(5), ...call }),
      { messages: prompt },
    );
    expect(result.status).toBe('completed');
    expect(refusals).toEqual([expect.objectContaining({ code: 'integration.not_approved' })]);
  });
});

/** True while the process `pid` exists (and is not a zombie). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
