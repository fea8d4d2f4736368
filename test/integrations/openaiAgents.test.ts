import { Agent, Runner, RunState, setTracingDisabled, tool } from '@openai/agents';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { fold } from 'happy-session';
import type { PermissionRequestMessage } from 'happy-session/protocol';
import type { UserSession } from 'happy-session/user';
import { openAiAgentsBridge } from 'happy-session/openai-agents';
import type { AgentsInput } from 'happy-session/openai-agents';
import { Account, connect } from 'happy-session/node';
import { expectV2Invariants } from '../helpers/invariants.js';
import { scriptedAgentsModel } from './agentsScript.js';
import type { AgentsRound } from './agentsScript.js';
import { onRelay, transcript } from './onRelay.js';
import type { OnRelay } from './onRelay.js';
import { until } from '../helpers/until.js';
import { turnEndings } from './turnEndings.js';

/**
 * The OpenAI Agents JS adapter with the real framework (`Runner`, tools with `needsApproval`,
 * handoffs, agents as tools, `RunState`) and a scripted `Model`, on a relay with real sockets.
 */
setTracingDisabled(true);

let relay: OnRelay;
beforeEach(async () => {
  relay = await onRelay();
});
afterEach(async () => {
  await relay.close();
});

function bashTool(ran: string[]) {
  return tool({
    name: 'bash',
    description: 'Runs a shell command',
    parameters: z.object({ command: z.string() }),
    needsApproval: true,
    execute: async ({ command }) => {
      ran.push(command);
      return `ran: ${command}`;
    },
  });
}

const callsBash: AgentsRound[] = [
  [{ text: 'I will list the files.' }, { call: 'bash', id: 'call-1', input: { command: 'ls' } }],
  [{ text: 'Here they are.' }],
];

/** An agent on a scripted model, and the function that starts its streamed run. */
function agentOn(rounds: readonly AgentsRound[], ran: string[]) {
  const script = scriptedAgentsModel(rounds);
  const runner = new Runner({ modelProvider: { getModel: () => script.model } });
  const agent = new Agent({ name: 'Main', instructions: 'Help.', tools: [bashTool(ran)] });
  const start = (input: AgentsInput, { signal }: { signal: AbortSignal }) =>
    runner.run(agent, input, { stream: true, signal });
  return { script, runner, agent, start };
}

describe('happy-session/openai-agents', () => {
  it('an interruption approved from the app runs the tool once and the run resumes; the stream reads back as produced', async () => {
    const ran: string[] = [];
    const { script, start } = agentOn(callsBash, ran);
    const bridge = openAiAgentsBridge(relay.session, { tools: { bash: { kind: 'execute' } } });
    const requested = relay.next('permission-request');
    const turn = bridge.run(start, 'list the files');
    const request = await requested;
    expect(await relay.answer(request.callId, { approved: true })).toMatchObject({ status: 'applied' });
    const result = await turn;

    expect(result.status).toBe('completed');
    expect(result.finalOutput).toBe('Here they are.');
    expect(ran).toEqual(['ls']);
    expect(JSON.stringify(script.inputs[1])).toContain('ran: ls');
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
  });

  it('a rejection does not run the tool, and the model gets the reason the person gave', async () => {
    const ran: string[] = [];
    const { script, start } = agentOn(callsBash, ran);
    const bridge = openAiAgentsBridge(relay.session);
    const requested = relay.next('permission-request');
    const turn = bridge.run(start, 'list the files');
    await relay.answer((await requested).callId, {
      approved: false,
      decision: 'denied',
      reason: 'not in this folder',
    });
    const result = await turn;

    expect(ran).toEqual([]);
    expect(result.status).toBe('completed');
    expect(JSON.stringify(script.inputs[1])).toContain('not in this folder');
    const messages = await relay.readBack();
    expectV2Invariants(messages);
    const lines = transcript(messages);
    expect(lines.slice(0, 2)).toEqual(['text: I will list the files.', 'call bash {"command":"ls"}']);
    expect(lines[2]).toMatch(/^end ! /);
    expect(lines.slice(3)).toEqual(['text: Here they are.', 'turn completed']);
  });

  it('an edited input is not run as the call (the framework binds approvals to it): the model is told the edit', async () => {
    const ran: string[] = [];
    const { script, start } = agentOn(
      [
        [{ call: 'bash', id: 'call-1', input: { command: 'rm -rf build' } }],
        [{ text: 'I will use your command.' }],
      ],
      ran,
    );
    const bridge = openAiAgentsBridge(relay.session);
    const requested = relay.next('permission-request');
    const turn = bridge.run(start, 'clean up');
    await relay.answer((await requested).callId, {
      approved: true,
      updatedInput: { command: 'rm -rf build/tmp' },
    });
    const result = await turn;

    expect(ran).toEqual([]);
    expect(result.status).toBe('completed');
    expect(JSON.stringify(script.inputs[1])).toContain('rm -rf build/tmp');
    const messages = await relay.readBack();
    expectV2Invariants(messages);
    const lines = transcript(messages);
    expect(lines[0]).toBe('call bash {"command":"rm -rf build"}');
    expect(lines[1]).toMatch(/^end ! Not run: the user edited the input/);
  });

  it("a tool that throws ends its call failed (the framework's default error text)", async () => {
    const script = scriptedAgentsModel([
      [{ call: 'read_file', id: 'call-f', input: { path: 'missing.txt' } }],
      [{ text: 'No such file.' }],
    ]);
    const runner = new Runner({ modelProvider: { getModel: () => script.model } });
    const readFile = tool({
      name: 'read_file',
      description: 'Reads a file',
      parameters: z.object({ path: z.string() }),
      execute: async ({ path }): Promise<string> => {
        throw new Error(`ENOENT: ${path}`);
      },
    });
    const agent = new Agent({ name: 'Main', instructions: 'Help.', tools: [readFile] });
    const bridge = openAiAgentsBridge(relay.session);
    const result = await bridge.run(
      (input, { signal }) => runner.run(agent, input, { stream: true, signal }),
      'read it',
    );

    expect(result.status).toBe('completed');
    const messages = await relay.readBack();
    expectV2Invariants(messages);
    expect(transcript(messages)).toEqual([
      'call read_file {"path":"missing.txt"}',
      'end ! An error occurred while running the tool. Please try again.',
      'text: No such file.',
      'turn completed',
    ]);
  });

  it("the app's stop mid-run aborts the run's signal and the turn ends cancelled", async () => {
    const { script, start } = agentOn(['hang'], []);
    const bridge = openAiAgentsBridge(relay.session);
    const started = relay.next('turn-start');
    const turn = bridge.run(start, 'think hard');
    await started;
    await until(() => script.signals.length === 1);
    await relay.stop();
    const result = await turn;

    expect(result).toMatchObject({ status: 'cancelled', pending: false });
    expect(script.signals[0]?.aborted).toBe(true);
    const messages = await relay.readBack();
    expectV2Invariants(messages);
    expect(transcript(messages)).toEqual(['turn cancelled']);
  });

  it("a handoff's messages nest under the handoff's call, labelled with the agent handed to", async () => {
    const script = scriptedAgentsModel([
      [{ text: 'Passing you on.' }, { call: 'transfer_to_Billing', id: 'call-h', input: {} }],
      [{ thinking: 'An invoice question.' }, { text: 'Billing here: paid.' }],
    ]);
    const runner = new Runner({ modelProvider: { getModel: () => script.model } });
    const billing = new Agent({ name: 'Billing', instructions: 'Invoices.' });
    const triage = new Agent({ name: 'Triage', instructions: 'Route.', handoffs: [billing] });
    const bridge = openAiAgentsBridge(relay.session);
    const result = await bridge.run(
      (input, { signal }) => runner.run(triage, input, { stream: true, signal }),
      'was I billed?',
    );

    expect(result.status).toBe('completed');
    const messages = await relay.readBack();
    expectV2Invariants(messages);
    expect(transcript(messages)).toEqual([
      'text: Passing you on.',
      'call transfer_to_Billing {} [Billing]',
      '  thinking: An invoice question.',
      '  text: Billing here: paid.',
      'end',
      'turn completed',
    ]);
  });

  it("an agent used as a tool streams its messages under that tool's call", async () => {
    const script = scriptedAgentsModel([
      [{ call: 'research', id: 'call-r', input: { input: 'otters' } }],
      [{ text: 'They hold hands while asleep.' }],
      [{ text: 'Otters hold hands.' }],
    ]);
    const runner = new Runner({ modelProvider: { getModel: () => script.model } });
    const bridge = openAiAgentsBridge(relay.session, {
      tools: { research: { kind: 'read', agentTitle: 'Researcher' } },
    });
    const researcher = new Agent({ name: 'Researcher', instructions: 'Look things up.' });
    const main = new Agent({
      name: 'Main',
      instructions: 'Answer.',
      tools: [
        researcher.asTool({ toolName: 'research', toolDescription: 'Researches', onStream: bridge.onStream }),
      ],
    });
    const result = await bridge.run(
      (input, { signal }) => runner.run(main, input, { stream: true, signal }),
      'otters?',
    );

    expect(result.status).toBe('completed');
    const messages = await relay.readBack();
    expectV2Invariants(messages);
    expect(transcript(messages)).toEqual([
      'call research {"input":"otters"} [Researcher]',
      '  text: They hold hands while asleep.',
      'end',
      'text: Otters hold hands.',
      'turn completed',
    ]);
  });

  // Every way a turn can end leaves a history the framework takes: a second prompt on it completes
  // (issue 39, item 3); a denial is an answer and the turn goes on unless the person stopped.
  const endings = turnEndings((method, params) =>
    relay.app.call(relay.session.id, method, params, relay.key),
  );
  it.each(endings)(
    'after $name while a call waits, a second prompt on the history completes',
    async ({ end, status }) => {
      const ran: string[] = [];
      const { start } = agentOn(callsBash, ran);
      const bridge = openAiAgentsBridge(relay.session);
      const requested = relay.next('permission-request');
      const turn = bridge.run(start, 'list the files');
      await end((await requested).callId);
      const first = await turn;
      expect(first.status).toBe(status);
      expect(ran).toEqual([]);
      expect(first.history).toBeDefined();

      const next = agentOn([[{ text: 'Hello.' }]], ran);
      const second = await bridge.run(next.start, [...first.history!, { role: 'user', content: 'say hi' }]);
      expect(second).toMatchObject({ status: 'completed', finalOutput: 'Hello.' });
      // Every function call the model is shown has its output, as the Responses API requires.
      expect(unansweredCalls(next.script.inputs[0])).toEqual([]);
      // A denial reaches the model with the call; a stop leaves no call waiting.
      if (status === 'completed') expect(JSON.stringify(next.script.inputs[0])).toContain('call-1');
      const lines = transcript(await relay.readBack());
      expect(lines.filter((l) => l.startsWith('turn '))).toEqual([`turn ${status}`, 'turn completed']);
    },
  );

  it('two calls with one id in a response: the person is shown one call, and only that one runs, once', async () => {
    const ran: string[] = [];
    const { start } = agentOn(
      [
        [
          { call: 'bash', id: 'dup', input: { command: 'ls' } },
          { call: 'bash', id: 'dup', input: { command: 'rm -rf ~' } },
        ],
        [{ text: 'Done.' }],
      ],
      ran,
    );
    const bridge = openAiAgentsBridge(relay.session);
    const shown: string[] = [];
    const replies: Promise<unknown>[] = [];
    const subscription = relay.session.writer.messages$.subscribe((m) => {
      if (m.type !== 'permission-request') return;
      shown.push(String(m.args?.command));
      replies.push(relay.answer(m.callId, { approved: true }));
    });
    try {
      await bridge.run(start, 'tidy up');
    } finally {
      subscription.unsubscribe();
      await Promise.all(replies);
    }
    expect(ran.filter((c) => !shown.includes(c))).toEqual([]);
    expect(ran.length).toBeLessThanOrEqual(shown.length);
  });

  it('a RunState saved while a call waits survives a restart and resumes with the answer read from the stream', async () => {
    const ran: string[] = [];
    const first = agentOn(callsBash, ran);
    const bridge = openAiAgentsBridge(relay.session);
    let saved: string | undefined;
    const requested = relay.next('permission-request');
    const interrupted = bridge.run(first.start, 'list the files', {
      onInterrupted: (state) => {
        saved = state;
      },
    });
    await requested;
    // The program dies while the person has not answered yet: its session closes.
    await relay.session.close();
    expect(await interrupted).toMatchObject({ status: 'cancelled', pending: true });
    expect(saved).toBeDefined();
    expect(ran).toEqual([]);

    // A new program on the same session: a fresh agent and runner, the run restored from the save.
    const again = await connect({
      server: relay.account.relay.url,
      credentials: relay.account.credentials,
      sessionId: relay.session.id,
    });
    const user = await Account.open({
      server: relay.account.relay.url,
      credentials: relay.account.credentials,
    });
    const userSession = await user.session(again.id);
    try {
      const second = agentOn(callsBash.slice(1), ran);
      const state = await RunState.fromString(second.agent, saved!);
      const resumed = openAiAgentsBridge(again).run(second.start, state);
      const pending = await untilPending(userSession);
      // The person answers in the stream only (no RPC): the resumed gate reads it from there.
      await userSession.answer(pending, 'allow', { channels: 'stream' });
      const result = await resumed;

      expect(result.status).toBe('completed');
      expect(result.finalOutput).toBe('Here they are.');
      expect(ran).toEqual(['ls']);
      await again.writer.flush();
      const messages = await again.reader.messages();
      expectV2Invariants(messages);
      const resumedTurn = fold(messages).turn(result.turnId)!;
      expect(resumedTurn.status).toBe('completed');
      expect(transcript(messages).slice(-5)).toEqual([
        'call bash {"command":"ls"}',
        '  text: ```\nran: ls\n```',
        'end',
        'text: Here they are.',
        'turn completed',
      ]);
    } finally {
      await userSession.close();
      await user.close();
      await again.close();
    }
  });
});

/** The call ids of function calls in a model input without a function_call_result for them. */
function unansweredCalls(input: unknown): string[] {
  if (!Array.isArray(input)) return [];
  const items = input as { type?: string; callId?: string }[];
  const answered = new Set(items.filter((i) => i.type === 'function_call_result').map((i) => i.callId));
  return items.filter((i) => i.type === 'function_call' && !answered.has(i.callId)).map((i) => i.callId!);
}

async function untilPending(user: UserSession): Promise<PermissionRequestMessage> {
  for (let i = 0; i < 200; i++) {
    const [request] = await user.pending();
    if (request) return request;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('no request came');
}

/**
 * One shown call is one run with OpenAI Agents, a second set (issue 35, class 5): the model sends
 * arguments as text that JSON reads in more than one way, too large or too deep for a record, and
 * ids used again. What the person is shown is what runs, or nothing runs.
 */
describe('happy-session/openai-agents: one shown call, one run (a second set)', () => {
  async function shownAndRun(rounds: readonly AgentsRound[], approved = true) {
    const ran: string[] = [];
    const { start } = agentOn(rounds, ran);
    const bridge = openAiAgentsBridge(relay.session, { tools: { bash: { kind: 'execute' } } });
    const shown: string[] = [];
    const replies: Promise<unknown>[] = [];
    const subscription = relay.session.writer.messages$.subscribe((m) => {
      if (m.type !== 'permission-request') return;
      shown.push(String(m.args?.command));
      replies.push(
        relay.answer(m.callId, approved ? { approved: true } : { approved: false, decision: 'denied' }),
      );
    });
    try {
      const result = await bridge.run(start, 'tidy up');
      return { ran, shown, result };
    } finally {
      subscription.unsubscribe();
      await Promise.all(replies);
    }
  }
  const call = (id: string, raw: string): AgentsRound => [{ call: 'bash', id, input: {}, raw }];
  const done: AgentsRound = [{ text: 'Done.' }];

  it.each([
    [
      'a key given twice: JSON keeps the last, for the person and the tool alike',
      '{"command":"ls","command":"pwd"}',
    ],
    ['a \\u escape in the command', '{"command":"\\u006cs -la"}'],
    ['a __proto__ key beside the command', '{"__proto__":{"command":"rm -rf ~"},"command":"ls"}'],
    ['blanks and line breaks around the keys', '{\n  "command" :\t"ls"\n}'],
  ])('%s: what runs is what was shown', async (_name, raw) => {
    const { ran, shown } = await shownAndRun([call('c1', raw), done]);
    expect(ran.length).toBe(1);
    expect(ran).toEqual(shown);
  });

  it.each([
    [
      'arguments writing more than a record',
      `{"command":"ls","pad":"${'x'.repeat(1_200_000)}"}`,
      'stream.too_large',
    ],
    [
      'arguments nested deeper than MAX_ARGS_DEPTH',
      `{"command":"ls","pad":${'['.repeat(200)}${']'.repeat(200)}}`,
      'stream.invalid_message',
    ],
  ])('%s: refused before anyone is asked; nothing runs, the run fails closed', async (_name, raw, code) => {
    const { ran, shown, result } = await shownAndRun([call('big', raw), done]);
    expect(shown).toEqual([]);
    expect(ran).toEqual([]);
    expect(result.status).toBe('failed');
    expect((result.error as { code?: string }).code).toBe(code);
  });

  it('three calls with one id in a response: only a shown call runs, at most once', async () => {
    const { ran, shown } = await shownAndRun([
      [
        { call: 'bash', id: 'same', input: { command: 'ls' } },
        { call: 'bash', id: 'same', input: { command: 'pwd' } },
        { call: 'bash', id: 'same', input: { command: 'rm -rf ~' } },
      ],
      done,
    ]);
    expect(ran.filter((c) => !shown.includes(c))).toEqual([]);
    expect(ran.length).toBeLessThanOrEqual(1);
  });

  it('an id of an earlier round used again: each run was shown', async () => {
    const { ran, shown } = await shownAndRun([
      [{ call: 'bash', id: 'again', input: { command: 'ls' } }],
      [{ call: 'bash', id: 'again', input: { command: 'rm -rf ~' } }],
      done,
    ]);
    expect(ran.filter((c) => !shown.includes(c))).toEqual([]);
    expect(ran.filter((c) => c === 'rm -rf ~').length).toBeLessThanOrEqual(
      shown.filter((c) => c === 'rm -rf ~').length,
    );
  });

  /**
   * A run that stopped for `ls` outside the bridge, its approval written into the state by someone
   * other than the gate (`alwaysApprove`: every later bash call), then handed to the bridge; the
   * model's next round calls `rm -rf ~`. The person refuses everything they are shown.
   */
  async function handedState(alwaysApprove: boolean) {
    const ran: string[] = [];
    const { runner, agent, start } = agentOn(
      [
        [{ call: 'bash', id: 'first', input: { command: 'ls' } }],
        [{ call: 'bash', id: 'second', input: { command: 'rm -rf ~' } }],
        done,
      ],
      ran,
    );
    const stopped = await runner.run(agent, 'tidy up');
    for (const item of stopped.interruptions)
      if (alwaysApprove) stopped.state.approve(item, { alwaysApprove: true });
    const restored = await RunState.fromString(agent, stopped.state.toString());
    const bridge = openAiAgentsBridge(relay.session, { tools: { bash: { kind: 'execute' } } });
    const shown: string[] = [];
    const replies: Promise<unknown>[] = [];
    const subscription = relay.session.writer.messages$.subscribe((m) => {
      if (m.type !== 'permission-request') return;
      shown.push(String(m.args?.command));
      replies.push(relay.answer(m.callId, { approved: false, decision: 'denied' }));
    });
    try {
      return { ran, shown, result: await bridge.run(start, restored) };
    } finally {
      subscription.unsubscribe();
      await Promise.all(replies);
    }
  }

  it('a state handed in that approves a tool for good: the run does not start, nothing runs', async () => {
    const { ran, result } = await handedState(true);
    expect(ran).toEqual([]);
    expect(result.status).toBe('failed');
    expect(result.error).toMatchObject({ code: 'integration.foreign_approval' });
  });

  it('positive control: the same state without that approval asks for its call, and a refusal runs nothing unshown', async () => {
    const { ran, shown, result } = await handedState(false);
    expect(shown[0]).toBe('ls');
    expect(ran.filter((c) => !shown.includes(c))).toEqual([]);
    expect(result.error).toBeUndefined();
  });

  it('positive control: a plain call is shown, runs once, and does not run when refused', async () => {
    const approved = await shownAndRun([call('ok', '{"command":"ls"}'), done]);
    expect(approved).toMatchObject({ ran: ['ls'], shown: ['ls'] });
    const refused = await shownAndRun([call('no', '{"command":"ls"}'), done], false);
    expect(refused.ran).toEqual([]);
  });
});
