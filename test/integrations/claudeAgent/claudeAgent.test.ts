import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CanUseTool } from '@anthropic-ai/claude-agent-sdk';
import { happyCanUseTool } from 'happy-session/claude-agent';
import { expectV2Invariants } from '../../helpers/invariants.js';
import { lastUserText, resultText, toolResults } from '../../../examples/claude-agent/scriptedModel.js';
import type { MessagesRequest, ScriptedReply } from '../../../examples/claude-agent/scriptedModel.js';
import { claudeCodeBinary, claudeWorld, rows } from './world.js';
import type { ClaudeWorld } from './world.js';
import { turnEndings } from '../turnEndings.js';

/**
 * The Claude Agent SDK adapter for real (docs/claude-agent.md): the real SDK and Claude Code
 * binary, a scripted Anthropic API on 127.0.0.1, a relay, and the app answering by RPC.
 */
let binary: string;
let world: ClaudeWorld;

beforeAll(async () => {
  // Fetched once (about 400 MB) and cached; .ci/run fetches it before the tests.
  binary = await claudeCodeBinary();
}, 600_000);
beforeEach(async () => {
  world = await claudeWorld(binary);
});
afterEach(async () => {
  await world?.close();
});

/** The model's requests that carry the agent's tools (Claude Code's side requests carry none). */
const agentRequests = (): MessagesRequest[] => world.model.requests.filter((r) => (r.tools?.length ?? 0) > 0);

/** True once the agent asking has answered before (its request holds an assistant turn). */
const answered = (request: MessagesRequest): boolean => request.messages.some((m) => m.role === 'assistant');

/** A script: a Bash call that writes with `command`, then, given its result, a last word. */
function bashOnce(command: string): (request: MessagesRequest) => ScriptedReply {
  return (request) => {
    if (!request.tools?.length) return { content: [{ type: 'text', text: 'Title' }] };
    if (answered(request)) {
      const said = toolResults(request).map(resultText).join(' | ');
      return { content: [{ type: 'text', text: `The tool said: ${said}` }] };
    }
    return {
      content: [
        { type: 'thinking', thinking: 'The user wants a file; a shell command writes it.' },
        { type: 'text', text: 'I will write the file.' },
        { type: 'tool_use', name: 'Bash', input: { command, description: 'Write the file' } },
      ],
    };
  };
}

describe('approvals through the gate', () => {
  it('a call approved from the app by RPC runs once; the stream reads back as Claude Code produced it', async () => {
    const file = join(world.work, 'approved.txt');
    world.script = bashOnce(`echo ran >> ${file}`);
    const { done } = world.run('Write approved.txt');
    const request = await world.next('permission-request');
    expect(request).toMatchObject({ toolName: 'Bash', args: { command: `echo ran >> ${file}` } });
    await world.rpc('permission', { callId: request.callId, optionId: 'allow-once' });
    const result = await done;

    expect(result).toMatchObject({ status: 'completed', turns: 1 });
    expect(readFileSync(file, 'utf8')).toBe('ran\n');
    // The model got the tool's result.
    expect(toolResults(agentRequests().at(-1)!).map((b) => b.is_error ?? false)).toEqual([false]);

    await world.session.writer.flush();
    const stored = await world.session.reader.messages();
    expectV2Invariants(stored);
    const produced: unknown[] = [];
    world.written.subscribe((m) => produced.push(m));
    // What the relay holds is what the mirror wrote, in order.
    expect(rows(stored).filter((r) => (r as { type: string }).type !== 'permission-response')).toEqual(
      rows(produced as never).filter((r) => (r as { type: string }).type !== 'permission-response'),
    );
    const callId = request.callId;
    expect(rows(stored)).toEqual([
      { type: 'turn-start' },
      {
        type: 'text',
        role: 'agent',
        text: 'The user wants a file; a shell command writes it.',
        thinking: true,
      },
      { type: 'text', role: 'agent', text: 'I will write the file.' },
      {
        type: 'tool-call-start',
        callId,
        toolName: 'Bash',
        args: { command: `echo ran >> ${file}`, description: 'Write the file' },
      },
      { type: 'permission-request', callId },
      { type: 'permission-response', callId, optionId: 'allow-once' },
      {
        type: 'text',
        role: 'agent',
        text: expect.stringContaining('Bash completed with no output'),
        parentId: callId,
      },
      { type: 'tool-call-end', callId },
      { type: 'text', role: 'agent', text: 'The tool said: (Bash completed with no output)' },
      { type: 'turn-end', status: 'completed' },
    ]);
  });

  it('a call denied with a reason does not run, and the model is told the reason', async () => {
    const file = join(world.work, 'denied.txt');
    world.script = bashOnce(`echo ran > ${file}`);
    const { done } = world.run('Write denied.txt');
    const request = await world.next('permission-request');
    // Today's app: a denial with the person's words.
    await world.rpc('permission', {
      id: request.callId,
      approved: false,
      decision: 'denied',
      reason: 'Not in this folder, please.',
    });
    const result = await done;

    expect(result.status).toBe('completed');
    expect(existsSync(file)).toBe(false);
    const told = toolResults(agentRequests().at(-1)!);
    expect(told).toHaveLength(1);
    expect(told[0]!.is_error).toBe(true);
    expect(resultText(told[0]!)).toContain('Not in this folder, please.');
    const stored = await world.session.reader.messages();
    expectV2Invariants(stored);
    const end = stored.find((m) => m.type === 'tool-call-end' && m.callId === request.callId);
    expect(end).toMatchObject({ error: expect.any(String) });
    expect(stored.filter((m) => m.type === 'tool-call-end' && m.callId === request.callId)).toHaveLength(1);
  });

  it("the person's edited input is what runs: the binary runs the edited command", async () => {
    const asked = join(world.work, 'asked.txt');
    const edited = join(world.work, 'edited.txt');
    world.script = bashOnce(`echo asked > ${asked}`);
    const { done } = world.run('Write asked.txt');
    const request = await world.next('permission-request');
    await world.rpc('permission', {
      callId: request.callId,
      optionId: 'allow-once',
      updatedInput: { command: `echo edited > ${edited}` },
    });
    expect((await done).status).toBe('completed');

    expect(existsSync(asked)).toBe(false);
    expect(readFileSync(edited, 'utf8')).toBe('edited\n');
    const stored = await world.session.reader.messages();
    expectV2Invariants(stored);
    // The agent's record of the answer holds the arguments that ran.
    expect(stored.find((m) => m.type === 'permission-response')).toMatchObject({
      callId: request.callId,
      updatedInput: { command: `echo edited > ${edited}`, description: 'Write the file' },
    });
  });

  it('the hook refuses a tool use that no mirror shows', async () => {
    const hook: CanUseTool = happyCanUseTool({});
    const answer = await hook('Bash', { command: 'touch x' }, {
      signal: new AbortController().signal,
      toolUseID: 'toolu_unseen',
      requestId: 'r1',
    } as Parameters<CanUseTool>[2]);
    expect(answer).toMatchObject({ behavior: 'deny', message: expect.stringContaining('not shown') });
  });
});

describe("the conversation and Claude Code's own settings", () => {
  it("a second query with the first one's session id as resume goes on with the conversation", async () => {
    world.script = (request) => ({
      content: [{ type: 'text', text: request.tools?.length ? 'Noted.' : 'Title' }],
    });
    const first = await world.run('Remember the word kiwi.').done;
    expect(first).toMatchObject({ status: 'completed', sessionId: expect.any(String) });
    const second = await world.run('Which word?', { resume: first.sessionId! }).done;
    expect(second.status).toBe('completed');
    const last = agentRequests().at(-1)!;
    expect(JSON.stringify(last.messages)).toContain('Remember the word kiwi.');
    expect(lastUserText(last)).toContain('Which word?');
  });

  it('a tool Claude Code allows unasked reaches the gate when its settings ask for it', async () => {
    const notes = join(world.work, 'notes.md');
    writeFileSync(notes, 'kiwi\n');
    world.script = (request) => {
      if (!request.tools?.length) return { content: [{ type: 'text', text: 'Title' }] };
      if (answered(request)) return { content: [{ type: 'text', text: 'Read it.' }] };
      return { content: [{ type: 'tool_use', name: 'Read', input: { file_path: notes } }] };
    };
    const { done } = world.run('Read the notes', { settings: { permissions: { ask: ['Read'] } } });
    const request = await world.next('permission-request');
    expect(request).toMatchObject({ toolName: 'Read', args: { file_path: notes } });
    await world.rpc('permission', { callId: request.callId, optionId: 'allow-once' });
    expect((await done).status).toBe('completed');
    const stored = await world.session.reader.messages();
    expectV2Invariants(stored);
    expect(stored.find((m) => m.type === 'tool-call-end' && m.callId === request.callId)).not.toHaveProperty(
      'error',
    );
  });
});

describe('stop', () => {
  it("the app's stop while the model is still answering interrupts Claude Code, and the turn ends cancelled", async () => {
    // The model's answer never ends unless the test releases it: only the stop can end the run.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    world.script = (request) => {
      if (!request.tools?.length) return { content: [{ type: 'text', text: 'Title' }] };
      return { content: [{ type: 'text', text: 'Thinking about it for a long while' }], holdUntil: held };
    };
    const { query, done } = world.run('Take your time');
    const interrupt = vi.spyOn(query, 'interrupt');
    const close = vi.spyOn(query, 'close');
    // The model has begun answering: the request is in.
    await until(() => agentRequests().length > 0);
    const answer = await world.rpc('abort', { reason: 'The user stopped.' });
    expect(answer).toMatchObject({ aborted: 1 });
    const result = await done;
    release();

    expect(result.status).toBe('cancelled');
    // Ended by Claude Code itself once interrupted: its process was not closed under it.
    expect(interrupt).toHaveBeenCalledTimes(1);
    expect(close).not.toHaveBeenCalled();
    const stored = await world.session.reader.messages();
    expectV2Invariants(stored);
    expect(stored.filter((m) => m.type === 'turn-end')).toMatchObject([{ status: 'cancelled' }]);
  });

  it('a stop while a call waits for the person cancels the request: nothing runs, the turn ends cancelled', async () => {
    const file = join(world.work, 'never.txt');
    world.script = bashOnce(`echo ran > ${file}`);
    const { done } = world.run('Write never.txt');
    const request = await world.next('permission-request');
    await world.rpc('abort', {});
    const result = await done;

    expect(result.status).toBe('cancelled');
    expect(existsSync(file)).toBe(false);
    const stored = await world.session.reader.messages();
    expectV2Invariants(stored);
    expect(stored.find((m) => m.type === 'tool-call-end' && m.callId === request.callId)).toMatchObject({
      error: 'cancelled',
    });
    expect(stored.at(-1)).toMatchObject({ type: 'turn-end', status: 'cancelled' });
  });
});

describe('a second prompt after each way a turn ends', () => {
  // Issue 39, item 3: the conversation goes on (`resume`) after a denial, the app's No and a stop;
  // a denial is an answer and the turn goes on unless the person stopped (item 4).
  const endings = turnEndings((method, params) => world.rpc(method, params));
  it.each(endings)('after $name, a second prompt completes', async ({ end, status }) => {
    const file = join(world.work, 'never.txt');
    world.script = bashOnce(`echo ran > ${file}`);
    const { done } = world.run('Write never.txt');
    const request = await world.next('permission-request');
    await end(request.callId);
    const first = await done;
    expect(first.status).toBe(status);
    expect(existsSync(file)).toBe(false);
    expect(first.sessionId).toEqual(expect.any(String));

    world.script = (req) => ({ content: [{ type: 'text', text: req.tools?.length ? 'Hello.' : 'Title' }] });
    const second = await world.run('Say hi.', { resume: first.sessionId! }).done;
    expect(second.status).toBe('completed');
    expect(lastUserText(agentRequests().at(-1)!)).toContain('Say hi.');
    const stored = await world.session.reader.messages();
    expectV2Invariants(stored);
    expect(stored.filter((m) => m.type === 'turn-end').map((m) => (m as { status: string }).status)).toEqual([
      status,
      'completed',
    ]);
  });
});

describe('subagents', () => {
  it("a Task subagent's messages and calls nest under its call, which ends once the subagent is done", async () => {
    const file = join(world.work, 'sub.txt');
    const MARK = 'SUBAGENT-TASK';
    world.script = (request) => {
      if (!request.tools?.length) return { content: [{ type: 'text', text: 'Title' }] };
      const firstUser = lastUserText({
        ...request,
        messages: request.messages.filter((m) => m.role === 'user').slice(0, 1),
      });
      if (firstUser.includes(MARK)) {
        if (answered(request)) return { content: [{ type: 'text', text: 'The sub file is written.' }] };
        return {
          content: [
            { type: 'text', text: 'Subagent here, writing.' },
            {
              type: 'tool_use',
              name: 'Bash',
              input: { command: `echo sub > ${file}`, description: 'Write the sub file' },
            },
          ],
        };
      }
      // The main agent: it delegates first, then notes the launch and the subagent's report.
      if (answered(request)) return { content: [{ type: 'text', text: 'Main agent: noted.' }] };
      return {
        content: [
          {
            type: 'tool_use',
            name: 'Agent',
            input: {
              description: 'Write the sub file',
              prompt: `${MARK}: write ${file}`,
              subagent_type: 'general-purpose',
            },
          },
        ],
      };
    };
    const { done } = world.run('Delegate the file');
    const task = await world.next('tool-call-start', (m) => m.toolName === 'Agent');
    const request = await world.next('permission-request');
    await world.rpc('permission', { callId: request.callId, optionId: 'allow-once' });
    const result = await done;

    expect(result.status).toBe('completed');
    expect(readFileSync(file, 'utf8')).toBe('sub\n');
    expect(task.agentTitle).toBe('general-purpose');
    const stored = await world.session.reader.messages();
    expectV2Invariants(stored);
    const inside = stored.filter((m) => m.parentId === task.callId);
    expect(inside.length).toBeGreaterThan(0);
    // One subagent: every message of its scope names it.
    const agents = [...new Set(inside.map((m) => m.agentId))];
    expect(agents).toEqual([expect.any(String)]);
    expect(inside).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'text', text: 'Subagent here, writing.' }),
        expect.objectContaining({ type: 'tool-call-start', callId: request.callId, toolName: 'Bash' }),
        expect.objectContaining({ type: 'text', text: 'The sub file is written.' }),
      ]),
    );
    const taskEnds = stored.filter((m) => m.type === 'tool-call-end' && m.callId === task.callId);
    expect(taskEnds).toHaveLength(1);
    expect(taskEnds[0]).not.toHaveProperty('error');
    // The call ends after everything of its subagent.
    const endAt = stored.indexOf(taskEnds[0]!);
    expect(Math.max(...inside.map((m) => stored.indexOf(m)))).toBeLessThan(endAt);
    expect(stored.filter((m) => m.type === 'turn-end')).toMatchObject([{ status: 'completed' }]);
  });
});

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 2000 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  expect(check()).toBe(true);
}
