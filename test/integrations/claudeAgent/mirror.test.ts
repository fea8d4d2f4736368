import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { happyCanUseTool, happyClaude } from 'happy-session/claude-agent';
import type { ClaudeMessage } from 'happy-session/claude-agent';
import { PermissionGate } from 'happy-session/permissions';
import type { SessionMessage, SessionWriter } from 'happy-session';
import { expectV2Invariants } from '../../helpers/invariants.js';
import { memorySession } from '../../helpers/memorySession.js';

/**
 * The adapter's paths that Claude Code does not take on demand, with a query the test feeds by
 * hand, an in-memory writer and the gate answered on its local channel. The real binary:
 * claudeAgent.test.ts.
 */
let writer: SessionWriter;
let gate: PermissionGate;
let session: { turn: () => ReturnType<SessionWriter['turn']> };
let written: SessionMessage[];

beforeEach(async () => {
  const memory = memorySession();
  writer = memory.writer;
  gate = await PermissionGate.create({ writer });
  session = { turn: () => writer.turn() };
  written = [];
  writer.messages$.subscribe((m) => written.push(m));
});
afterEach(async () => {
  await writer.close();
});

/** A query whose messages the test pushes; `end()` ends it, `fail()` makes it throw. */
function fedQuery() {
  const queue: Array<{ message?: ClaudeMessage; error?: unknown; done?: boolean }> = [];
  let wake: (() => void) | undefined;
  const push = (item: (typeof queue)[number]) => {
    queue.push(item);
    wake?.();
  };
  const query = {
    interrupted: 0,
    async interrupt() {
      query.interrupted += 1;
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<ClaudeMessage> {
      for (;;) {
        while (queue.length === 0) await new Promise<void>((resolve) => (wake = resolve));
        const item = queue.shift()!;
        if (item.error !== undefined) throw item.error;
        if (item.done) return;
        yield item.message!;
      }
    },
  };
  return {
    query,
    send: (message: Record<string, unknown>) => push({ message: message as unknown as ClaudeMessage }),
    end: () => push({ done: true }),
    fail: (error: unknown) => push({ error }),
  };
}

const toolUse = (id: string, name: string, input: Record<string, unknown>, parent: string | null = null) => ({
  type: 'assistant',
  parent_tool_use_id: parent,
  message: { content: [{ type: 'tool_use', id, name, input }] },
});
const toolResult = (id: string, content: string, isError = false) => ({
  type: 'user',
  parent_tool_use_id: null,
  message: { content: [{ type: 'tool_result', tool_use_id: id, content, is_error: isError }] },
});
const success = { type: 'result', subtype: 'success', is_error: false, result: 'done' };
const context = (toolUseID: string) => ({ signal: new AbortController().signal, toolUseID });

async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(check()).toBe(true);
}

describe('the approval hook and the mirror meet by tool use id', () => {
  it('a hook called before the mirror read the tool use waits for its call, then asks the gate', async () => {
    const fed = fedQuery();
    const done = happyClaude(session, fed.query);
    const hook = happyCanUseTool(session);
    const answer = hook('Bash', { command: 'make' }, context('toolu_1'));
    fed.send(toolUse('toolu_1', 'Bash', { command: 'make' }));
    await until(() => gate.pendingCallIds.length === 1);
    const [callId] = gate.pendingCallIds;
    expect(gate.answer({ callId: callId!, optionId: 'allow-once' })).toMatchObject({ status: 'applied' });
    expect(await answer).toEqual({
      behavior: 'allow',
      updatedInput: { command: 'make' },
      toolUseID: 'toolu_1',
    });
    fed.send(toolResult('toolu_1', 'built'));
    fed.send(success);
    fed.end();
    expect(await done).toMatchObject({ status: 'completed', turns: 1, result: 'done' });
    expectV2Invariants(written);
    expect(written.find((m) => m.type === 'text' && m.parentId === callId)).toMatchObject({
      text: '```\nbuilt\n```',
    });
  });

  it('when Claude Code asks about other input than the model sent, that is what is shown and asked', async () => {
    const fed = fedQuery();
    const done = happyClaude(session, fed.query);
    fed.send(toolUse('toolu_2', 'Bash', { command: 'ls' }));
    await until(() => written.some((m) => m.type === 'tool-call-start'));
    const answer = happyCanUseTool(session)('Bash', { command: 'rm -rf build' }, context('toolu_2'));
    await until(() => gate.pendingCallIds.length === 1);
    const request = written.find((m) => m.type === 'permission-request')!;
    expect(request).toMatchObject({ args: { command: 'rm -rf build' } });
    gate.answer({ callId: gate.pendingCallIds[0]!, optionId: 'deny' });
    expect(await answer).toMatchObject({ behavior: 'deny', message: 'Denied by the user.' });
    const starts = written.filter((m) => m.type === 'tool-call-start');
    expect(starts.map((m) => m.args)).toEqual([{ command: 'ls' }, { command: 'rm -rf build' }]);
    expect(written.find((m) => m.type === 'tool-call-end' && m.callId === starts[0]!.callId)).toMatchObject({
      error: expect.stringContaining('superseded'),
    });
    // Claude Code's error result for the denied call ends nothing twice.
    fed.send(toolResult('toolu_2', 'The user denied this tool call.', true));
    fed.send(success);
    fed.end();
    await done;
    expectV2Invariants(written);
  });

  // One shown call is one run (issue 35, class 5): an allow carries the input that was shown, and a
  // tool use id answered once is never answered again. The control is the first answer, which a
  // person who refuses everything turns into a denial.
  it.each([
    ['the person allows', 'allow-once', 'allow'],
    ['a person who refuses everything', 'deny', 'deny'],
  ] as const)(
    'one tool use id, one answer: %s the shown call; the same id asked again with other input is refused unasked',
    async (_who, optionId, behavior) => {
      const fed = fedQuery();
      const done = happyClaude(session, fed.query);
      fed.send(toolUse('toolu_once', 'Bash', { command: 'ls' }));
      await until(() => written.some((m) => m.type === 'tool-call-start'));
      const hook = happyCanUseTool(session);
      const first = hook('Bash', { command: 'ls' }, context('toolu_once'));
      await until(() => gate.pendingCallIds.length === 1);
      gate.answer({ callId: gate.pendingCallIds[0]!, optionId });
      const answer = await first;
      expect(answer.behavior).toBe(behavior);
      if (behavior === 'allow') expect(answer).toMatchObject({ updatedInput: { command: 'ls' } });
      fed.send(toolResult('toolu_once', behavior === 'allow' ? 'a b' : 'denied', behavior !== 'allow'));
      await until(() => written.some((m) => m.type === 'tool-call-end'));

      const again = await hook('Bash', { command: 'rm -rf ~' }, context('toolu_once'));
      expect(again).toMatchObject({ behavior: 'deny' });
      expect(written.filter((m) => m.type === 'permission-request')).toHaveLength(1);
      fed.send(success);
      fed.end();
      await done;
      expectV2Invariants(written);
    },
  );

  it('a hook for a tool use the mirror never writes is refused once the mirror ends', async () => {
    const fed = fedQuery();
    const done = happyClaude(session, fed.query);
    const answer = happyCanUseTool(session)('Bash', { command: 'make' }, context('toolu_unseen'));
    fed.send(success);
    fed.end();
    await done;
    expect(await answer).toMatchObject({ behavior: 'deny', message: expect.stringContaining('never shown') });
  });

  it('a session without a gate: the hook answers deny and the call ends', async () => {
    const bare = memorySession();
    const plain = { turn: () => bare.writer.turn() };
    const fed = fedQuery();
    const done = happyClaude(plain, fed.query);
    fed.send(toolUse('toolu_3', 'Bash', { command: 'make' }));
    const answer = await happyCanUseTool(plain)('Bash', { command: 'make' }, context('toolu_3'));
    expect(answer).toMatchObject({
      behavior: 'deny',
      message: expect.stringContaining('permission request failed'),
    });
    fed.send(success);
    fed.end();
    await done;
    await bare.writer.close();
  });
});

describe('the plan', () => {
  it('a TodoWrite Claude Code took is the plan of the agent that wrote it; its call shows no acknowledgement', async () => {
    const fed = fedQuery();
    const done = happyClaude(session, fed.query);
    const todos = [
      { content: 'Read the code', status: 'completed', activeForm: 'Reading the code' },
      { content: 'Fix the bug', status: 'in_progress', activeForm: 'Fixing the bug', priority: 'high' },
      { content: '', status: 'pending' },
      { content: 'Ship it', status: 'someday' },
    ];
    fed.send(toolUse('toolu_6', 'TodoWrite', { todos }));
    fed.send(toolResult('toolu_6', 'Todos have been modified successfully.'));
    fed.send(success);
    fed.end();
    await done;
    expectV2Invariants(written);
    expect(written.map((m) => m.type)).toEqual([
      'turn-start',
      'tool-call-start',
      'tool-call-end',
      'plan',
      'turn-end',
    ]);
    expect(written.find((m) => m.type === 'plan')).toMatchObject({
      entries: [
        { content: 'Read the code', status: 'completed' },
        { content: 'Fix the bug', status: 'in_progress', priority: 'high' },
      ],
    });
  });

  it('a TodoWrite Claude Code refused is no plan', async () => {
    const fed = fedQuery();
    const done = happyClaude(session, fed.query);
    fed.send(toolUse('toolu_7', 'TodoWrite', { todos: [{ content: 'A', status: 'pending' }] }));
    fed.send(toolResult('toolu_7', 'No such tool available: TodoWrite.', true));
    fed.send(success);
    fed.end();
    await done;
    expect(written.map((m) => m.type)).toEqual([
      'turn-start',
      'tool-call-start',
      'tool-call-end',
      'turn-end',
    ]);
  });
});

describe('how turns and calls end', () => {
  it('an error result ends its call failed with the text; an error result of the query ends the turn failed', async () => {
    const fed = fedQuery();
    const done = happyClaude(session, fed.query);
    fed.send(toolUse('toolu_4', 'Read', { file_path: '/nowhere' }));
    fed.send(toolResult('toolu_4', 'File does not exist.', true));
    fed.send({
      type: 'result',
      subtype: 'error_max_turns',
      is_error: true,
      errors: ['Reached the maximum number of turns'],
    });
    fed.end();
    expect(await done).toMatchObject({ status: 'failed' });
    expectV2Invariants(written);
    expect(written.find((m) => m.type === 'tool-call-end')).toMatchObject({ error: 'File does not exist.' });
    expect(written.find((m) => m.type === 'service')).toMatchObject({
      text: 'Claude Code stopped: Reached the maximum number of turns',
    });
    expect(written.at(-1)).toMatchObject({ type: 'turn-end', status: 'failed' });
  });

  it('a stream that throws ends the turn failed, saying why, and its open calls cancelled', async () => {
    const fed = fedQuery();
    const done = happyClaude(session, fed.query);
    fed.send(toolUse('toolu_5', 'Bash', { command: 'sleep 100' }));
    fed.fail(new Error('Claude Code process exited with code 1'));
    const result = await done;
    expect(result).toMatchObject({ status: 'failed', error: expect.any(Error) });
    expectV2Invariants(written);
    expect(written.find((m) => m.type === 'service')).toMatchObject({
      text: 'Claude Code failed: Claude Code process exited with code 1',
    });
    expect(written.find((m) => m.type === 'tool-call-end')).toMatchObject({ error: 'cancelled' });
  });

  it('a prompt stream: each result ends a turn and the next message opens the next', async () => {
    const fed = fedQuery();
    const done = happyClaude(session, fed.query);
    const say = (text: string) => ({
      type: 'assistant',
      parent_tool_use_id: null,
      message: { content: [{ type: 'text', text }] },
    });
    fed.send(say('one'));
    fed.send(success);
    fed.send(say('two'));
    fed.send(success);
    fed.end();
    expect(await done).toMatchObject({ status: 'completed', turns: 2 });
    expectV2Invariants(written);
    expect(written.map((m) => m.type)).toEqual([
      'turn-start',
      'text',
      'turn-end',
      'turn-start',
      'text',
      'turn-end',
    ]);
  });

  it("the turn's stop interrupts the query; the turn ends cancelled", async () => {
    const fed = fedQuery();
    const done = happyClaude(session, fed.query);
    await until(() => writer.openTurns.length === 1);
    writer.openTurns[0]!.abort(new Error('stop'));
    expect(fed.query.interrupted).toBe(1);
    fed.send({ type: 'result', subtype: 'error_during_execution', is_error: true, errors: [] });
    fed.end();
    expect(await done).toMatchObject({ status: 'cancelled' });
    expect(written.at(-1)).toMatchObject({ type: 'turn-end', status: 'cancelled' });
  });
});

// One shown call is one run (issue 35, class 5), a second set: the same id twice in one message,
// an input changed by its owner while the person looks, arguments too large to show, and two
// hooks at once for one id. What an allow carries is what was shown; nothing unshown is allowed.
describe('one shown call, one run: a second set', () => {
  it('two tool uses with one id in a message: the hook is asked about what will run, and that is what is shown', async () => {
    const fed = fedQuery();
    const done = happyClaude(session, fed.query);
    fed.send({
      type: 'assistant',
      parent_tool_use_id: null,
      message: {
        content: [
          { type: 'tool_use', id: 'toolu_dup', name: 'Bash', input: { command: 'ls' } },
          { type: 'tool_use', id: 'toolu_dup', name: 'Bash', input: { command: 'rm -rf ~' } },
        ],
      },
    });
    await until(() => written.some((m) => m.type === 'tool-call-start'));
    const answer = happyCanUseTool(session)('Bash', { command: 'rm -rf ~' }, context('toolu_dup'));
    await until(() => gate.pendingCallIds.length === 1);
    expect(written.filter((m) => m.type === 'permission-request').map((m) => m.args)).toEqual([
      { command: 'rm -rf ~' },
    ]);
    gate.answer({ callId: gate.pendingCallIds[0]!, optionId: 'allow-once' });
    expect(await answer).toMatchObject({ behavior: 'allow', updatedInput: { command: 'rm -rf ~' } });
    fed.send(success);
    fed.end();
    await done;
  });

  it('an input its owner changes while the person looks: the allow carries the input shown', async () => {
    const fed = fedQuery();
    const done = happyClaude(session, fed.query);
    fed.send(toolUse('toolu_mut', 'Bash', { command: 'ls' }));
    await until(() => written.some((m) => m.type === 'tool-call-start'));
    const input: Record<string, unknown> = { command: 'ls' };
    const answer = happyCanUseTool(session)('Bash', input, context('toolu_mut'));
    await until(() => gate.pendingCallIds.length === 1);
    input.command = 'rm -rf ~';
    gate.answer({ callId: gate.pendingCallIds[0]!, optionId: 'allow-once' });
    expect(await answer).toMatchObject({ behavior: 'allow', updatedInput: { command: 'ls' } });
    fed.send(success);
    fed.end();
    await done;
  });

  it('a tool use too large to show is never allowed, and nobody is asked', async () => {
    const fed = fedQuery();
    const done = happyClaude(session, fed.query);
    fed.send(toolUse('toolu_big', 'Bash', { command: 'ls', pad: 'x'.repeat(1_200_000) }));
    fed.send(toolUse('toolu_small', 'Bash', { command: 'pwd' }));
    await until(() => written.some((m) => m.type === 'tool-call-start'));
    const answer = await happyCanUseTool(session)(
      'Bash',
      { command: 'ls', pad: 'x'.repeat(1_200_000) },
      context('toolu_big'),
    );
    expect(answer).toMatchObject({ behavior: 'deny' });
    expect(written.filter((m) => m.type === 'permission-request')).toEqual([]);
    fed.send(success);
    fed.end();
    await done;
  });

  it('two hooks at once for one id: one request, and the second is never an allow of something unshown', async () => {
    const fed = fedQuery();
    const done = happyClaude(session, fed.query);
    fed.send(toolUse('toolu_two', 'Bash', { command: 'ls' }));
    await until(() => written.some((m) => m.type === 'tool-call-start'));
    const hook = happyCanUseTool(session);
    const first = hook('Bash', { command: 'ls' }, context('toolu_two'));
    const second = hook('Bash', { command: 'rm -rf ~' }, context('toolu_two'));
    await until(() => gate.pendingCallIds.length >= 1);
    for (const callId of gate.pendingCallIds) gate.answer({ callId, optionId: 'allow-once' });
    const answers = await Promise.all([first, second]);
    const shown = written.filter((m) => m.type === 'permission-request').map((m) => m.args);
    for (const a of answers)
      if (a.behavior === 'allow') expect(shown).toContainEqual((a as { updatedInput: unknown }).updatedInput);
    expect(answers.filter((a) => a.behavior === 'allow').length).toBeLessThanOrEqual(1);
    fed.send(success);
    fed.end();
    await done;
  });
});
