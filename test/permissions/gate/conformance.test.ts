import { getEventListeners } from 'node:events';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { foldPermissions, fold } from 'happy-session';
import type { SessionMessage, ToolCall, Turn } from 'happy-session';
import { PermissionGate } from 'happy-session/permissions';
// The timeout's note is a detail of the gate, not a name it exports.
import { TIMEOUT_MESSAGE } from '../../../packages/sdk/src/gate/timeouts.js';
import type { GateWorld } from './worlds.js';
import { until } from '../../helpers/until.js';
import { describeEachWorld, worlds } from './worlds.js';

/** The stream as short labels: type, plus the option and channel of answers and the error of ends. */
function labels(messages: readonly SessionMessage[]): string[] {
  return messages.map((m) => {
    if (m.type === 'permission-response')
      return `permission-response(${m.optionId}${m.via ? `,${m.via}` : ''})`;
    if (m.type === 'tool-call-end') return m.error ? `tool-call-end(${m.error})` : 'tool-call-end';
    if (m.type === 'turn-end') return `turn-end(${m.status})`;
    if (m.type === 'service') return `service(${m.text})`;
    return m.type;
  });
}

/** A counting executor. */
function executor() {
  const calls: Array<Readonly<Record<string, unknown>>> = [];
  const run = (args: Readonly<Record<string, unknown>>) => {
    calls.push(args);
    return 'ok';
  };
  return { calls, run };
}

/** Starts a call on a new turn of the agent, run by a counting executor, and waits for its request. */
async function runRequested(world: GateWorld, toolCall: Parameters<Turn['toolCall']>[0]) {
  const turn = world.agent.writer.turn();
  const call = turn.toolCall(toolCall);
  const exec = executor();
  const running = call.run(exec.run);
  await world.requested(call.callId);
  return { turn, call, exec, running };
}

describeEachWorld('permission gate conformance over %s', (open) => {
  describe('1. allow once, happy path', () => {
    it('by RPC: request with the four kinds, the recorded response, the executor once with the original args, the end', async () => {
      const world = await open();
      const { turn, call, exec, running } = await runRequested(world, {
        toolName: 'bash',
        title: 'Run ls',
        args: { command: 'ls' },
      });
      expect(await world.rpc({ callId: call.callId, optionId: 'allow-once' })).toMatchObject({
        status: 'applied',
      });
      const result = await running;
      turn.end();
      expect(result).toMatchObject({
        status: 'done',
        value: 'ok',
        decision: { outcome: 'allow', kind: 'allow-once', source: 'user', via: 'rpc' },
      });
      expect(exec.calls).toEqual([{ command: 'ls' }]);
      const messages = await world.messages();
      expect(labels(messages)).toEqual([
        'turn-start',
        'tool-call-start',
        'permission-request',
        'permission-response(allow-once,rpc)',
        'tool-call-end',
        'turn-end(completed)',
      ]);
      const request = messages[2]!;
      expect(request.type === 'permission-request' && request.options.map((o) => o.kind)).toEqual([
        'allow-once',
        'allow-always',
        'reject-once',
        'reject-always',
      ]);
    });

    it("by the stream: the app-written response is the one response, and the agent's sealed note confirms it", async () => {
      const world = await open();
      const { turn, call, exec, running } = await runRequested(world, {
        toolName: 'bash',
        args: { command: 'ls' },
      });
      await world.streamAnswer(call.callId, 'allow-once');
      expect(await running).toMatchObject({ status: 'done', decision: { via: 'stream' } });
      turn.end();
      expect(labels(await world.messages())).toEqual([
        'turn-start',
        'tool-call-start',
        'permission-request',
        'permission-response(allow-once)',
        expect.stringMatching(/^service\(Permission answer applied: /),
        'tool-call-end',
        'turn-end(completed)',
      ]);
      expect(exec.calls).toHaveLength(1);
    });
  });

  describe('2. reject once', () => {
    it('never runs the executor, ends the call with the denial, and the turn goes on', async () => {
      const world = await open();
      const { turn, call, exec, running } = await runRequested(world, {
        toolName: 'bash',
        args: { command: 'rm -rf /' },
      });
      await world.rpc({ callId: call.callId, optionId: 'deny' });
      expect(await running).toMatchObject({
        status: 'denied',
        decision: { outcome: 'deny', source: 'user', kind: 'reject-once' },
      });
      turn.text('I will not delete it.');
      turn.end();
      expect(exec.calls).toHaveLength(0);
      expect(labels(await world.messages())).toEqual([
        'turn-start',
        'tool-call-start',
        'permission-request',
        'permission-response(deny,rpc)',
        'tool-call-end(Denied by the user.)',
        'text',
        'turn-end(completed)',
      ]);
    });

    // One turn-ending rule on every channel (docs/permissions.md, "How a turn ends after a denial"):
    // a denial is an answer and the turn goes on; only the person's stop ends it.
    const denials: ReadonlyArray<readonly [string, (world: GateWorld, callId: string) => Promise<unknown>]> =
      [
        ['the stream', (world, callId) => world.streamAnswer(callId, 'deny')],
        ['the RPC, v2 body', (world, callId) => world.rpc({ callId, optionId: 'deny' })],
        [
          "the RPC, today's app's No (legacy body)",
          (world, callId) => world.rpc({ id: callId, approved: false }),
        ],
        [
          'the RPC, legacy body with decision denied',
          (world, callId) => world.rpc({ id: callId, approved: false, decision: 'denied' }),
        ],
        ['the local program', async (world, callId) => world.agent.gate.answer({ callId, optionId: 'deny' })],
      ];
    it.each(denials)(
      'a denial by %s is an answer: the turn goes on, asks again and ends completed',
      async (_channel, deny) => {
        const world = await open();
        const turn = world.agent.writer.turn();
        const call = turn.toolCall({ toolName: 'bash', args: { command: 'rm -rf build' } });
        const pending = call.requestPermission();
        await world.requested(call.callId);
        await deny(world, call.callId);
        const decision = await pending;
        expect(decision).toMatchObject({ outcome: 'deny', source: 'user', kind: 'reject-once' });
        expect(decision.interrupt).toBeUndefined();
        expect(turn.signal.aborted).toBe(false);
        // The turn goes on: the next call asks and runs.
        const next = turn.toolCall({ toolName: 'bash', args: { command: 'ls' } });
        const exec = executor();
        const running = next.run(exec.run);
        await world.requested(next.callId);
        await world.rpc({ callId: next.callId, optionId: 'allow-once' });
        expect(await running).toMatchObject({ status: 'done' });
        turn.end();
        expect(exec.calls).toEqual([{ command: 'ls' }]);
        expect(labels(await world.messages()).at(-1)).toBe('turn-end(completed)');
      },
    );

    it("the person's stop on the card (decision abort) denies and stops: the turn's signal aborts", async () => {
      const world = await open();
      const turn = world.agent.writer.turn();
      const call = turn.toolCall({ toolName: 'bash', args: { command: 'ls' } });
      const other = turn.toolCall({ toolName: 'bash', args: { command: 'pwd' } });
      const pending = call.requestPermission();
      const otherPending = other.requestPermission();
      await world.requested(call.callId);
      await world.requested(other.callId);
      expect(await world.rpc({ id: call.callId, approved: false, decision: 'abort' })).toMatchObject({
        status: 'applied',
      });
      expect(await pending).toMatchObject({ outcome: 'deny', interrupt: true });
      // The stop cancels the turn's other pending requests.
      expect(await otherPending).toMatchObject({ outcome: 'cancelled' });
      expect(turn.signal.aborted).toBe(true);
      turn.end('cancelled');
      expect(labels(await world.messages()).at(-1)).toBe('turn-end(cancelled)');
    });
  });

  describe('3. allow-always by tool name', () => {
    it('grants the tool for the session: the next Grep asks nobody, Edit still asks, a new session asks again', async () => {
      // Reads are allowed only inside a workspace (docs/permissions-policy.md, "Reads stay in the workspace").
      const world = await open({ workspaceRoot: process.cwd() });
      const turn = world.agent.writer.turn();
      const first = turn.toolCall({ toolName: 'Grep', args: { pattern: 'TODO' } });
      const firstDecision = first.requestPermission();
      await world.requested(first.callId);
      await world.rpc({ callId: first.callId, optionId: 'allow-session' });
      expect(await firstDecision).toMatchObject({ outcome: 'allow', kind: 'allow-always' });
      first.end();
      expect(world.agent.gate.listRules().map((r) => r.rule)).toEqual(['Grep']);
      const grantedBy = world.agent.gate.listRules()[0]!.grantedBy;

      const second = turn.toolCall({ toolName: 'Grep', args: { pattern: 'FIXME' } });
      expect(await second.requestPermission()).toMatchObject({
        outcome: 'allow',
        source: 'rule',
        rule: 'Grep',
      });
      second.end();
      const edit = turn.toolCall({ toolName: 'Edit', args: { file_path: 'a.ts' } });
      const editDecision = edit.requestPermission();
      expect(world.agent.gate.pendingCallIds).toEqual([edit.callId]);
      world.agent.gate.answer({ callId: edit.callId, optionId: 'deny' });
      await editDecision;
      turn.end();
      const messages = await world.messages();
      expect(labels(messages).filter((l) => l === 'permission-request')).toHaveLength(2);
      expect(messages.find((m) => m.id === grantedBy)).toMatchObject({
        type: 'permission-response',
        via: 'rpc',
      });

      const other = await open();
      const fresh = other.agent.writer.turn().toolCall({ toolName: 'Grep', args: { pattern: 'TODO' } });
      void fresh.requestPermission();
      expect(other.agent.gate.pendingCallIds).toEqual([fresh.callId]);
    });
  });

  describe('4. Bash prefix and compound commands', () => {
    async function asks(world: GateWorld, command: string): Promise<boolean> {
      const call = world.agent.writer.turn().toolCall({ toolName: 'Bash', args: { command } });
      const decision = call.requestPermission();
      const asked = world.agent.gate.pendingCallIds.includes(call.callId);
      if (asked) world.agent.gate.answer({ callId: call.callId, optionId: 'deny' });
      await decision;
      return asked;
    }

    it('Bash(npm test:*) allows npm test and its arguments, and asks for everything else', async () => {
      const world = await open({ rules: { allow: ['Bash(npm test:*)'] } });
      expect(await asks(world, 'npm test')).toBe(false);
      expect(await asks(world, 'npm test -- --watch')).toBe(false);
      for (const command of [
        'npm testx',
        'npm test && rm -rf ~',
        'npm test; curl x | sh',
        'npm test `id`',
        'echo $(npm test)',
        'npm test "unterminated',
      ]) {
        expect(await asks(world, command), command).toBe(true);
      }
    });

    it('Bash(npm test) matches only npm test; cd app && npm test needs both parts allowed', async () => {
      const world = await open({ rules: { allow: ['Bash(npm test)'] } });
      expect(await asks(world, 'npm test')).toBe(false);
      expect(await asks(world, 'npm test -- --watch')).toBe(true);
      expect(await asks(world, 'cd app && npm test')).toBe(true);
      const second = await open({ rules: { allow: ['Bash(cd:*)', 'Bash(npm test:*)'] } });
      expect(await asks(second, 'cd app && npm test')).toBe(false);
    });
  });

  describe('5. precedence and the limits of bypass', () => {
    it('in bypassPermissions a deny rule still denies without asking, an ask rule and AskUserQuestion still ask', async () => {
      const world = await open({ mode: 'yolo', rules: { deny: ['Bash(rm:*)'], ask: ['Bash(git push:*)'] } });
      const turn = world.agent.writer.turn();
      const rm = turn.toolCall({ toolName: 'Bash', args: { command: 'rm -rf x' } });
      expect(await rm.requestPermission()).toMatchObject({
        outcome: 'deny',
        source: 'rule',
        rule: 'Bash(rm:*)',
      });
      expect(rm.error).toContain('Bash(rm:*)');
      const push = turn.toolCall({ toolName: 'Bash', args: { command: 'git push origin' } });
      void push.requestPermission();
      const ask = turn.toolCall({ toolName: 'AskUserQuestion', args: { question: 'Which?' } });
      void ask.requestPermission();
      const ls = turn.toolCall({ toolName: 'Bash', args: { command: 'ls' } });
      expect(await ls.requestPermission()).toMatchObject({ outcome: 'allow', source: 'mode' });
      expect(world.agent.gate.pendingCallIds).toEqual([push.callId, ask.callId]);
      turn.end();
    });

    it('dontAsk denies what is not allowed; an unknown tool kind is never auto-allowed in read-only or plan', async () => {
      const world = await open({ mode: 'dontAsk' });
      const turn = world.agent.writer.turn();
      expect(
        await turn.toolCall({ toolName: 'Bash', args: { command: 'ls' } }).requestPermission(),
      ).toMatchObject({ outcome: 'deny', source: 'mode' });
      for (const mode of ['read-only', 'plan']) {
        world.agent.gate.setMode(mode);
        const call = turn.toolCall({ toolName: 'mystery_tool', kind: 'teleport', args: {} });
        const decision = call.requestPermission();
        if (world.agent.gate.pendingCallIds.includes(call.callId))
          world.agent.gate.answer({ callId: call.callId, optionId: 'deny' });
        expect((await decision).outcome).not.toBe('allow');
      }
      turn.end();
    });
  });

  describe('6. abort while waiting', () => {
    it('resolves cancelled, closes the call, and a later allow is already_resolved; the executor never runs', async () => {
      const world = await open();
      const turn = world.agent.writer.turn();
      const call = turn.toolCall({ toolName: 'bash', args: { command: 'ls' } });
      const controller = new AbortController();
      const exec = executor();
      const running = call.run(exec.run, { signal: controller.signal });
      await world.requested(call.callId);
      controller.abort();
      expect(await running).toMatchObject({
        status: 'cancelled',
        decision: { outcome: 'cancelled', source: 'cancel' },
      });
      expect(world.agent.gate.pendingCallIds).toEqual([]);
      expect(await world.rpc({ callId: call.callId, optionId: 'allow-once' })).toMatchObject({
        status: 'already_resolved',
        decision: { outcome: 'cancelled' },
      });
      turn.end();
      expect(exec.calls).toHaveLength(0);
      expect(labels(await world.messages())).toEqual([
        'turn-start',
        'tool-call-start',
        'permission-request',
        'tool-call-end(cancelled)',
        'turn-end(completed)',
      ]);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
    });
  });

  describe('7. pre-aborted signal', () => {
    it('resolves cancelled at once with no request, closes the call, and leaves no listener', async () => {
      const world = await open();
      const turn = world.agent.writer.turn();
      const call = turn.toolCall({ toolName: 'bash', args: { command: 'ls' } });
      const controller = new AbortController();
      controller.abort();
      expect(await call.requestPermission({ signal: controller.signal })).toMatchObject({
        outcome: 'cancelled',
        source: 'cancel',
      });
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);
      turn.end();
      expect(labels(await world.messages())).toEqual([
        'turn-start',
        'tool-call-start',
        'tool-call-end(cancelled)',
        'turn-end(completed)',
      ]);
    });
  });

  describe('8. duplicate delivery', () => {
    it('the same allow-always by RPC, then by the stream, then by RPC again: applied once, one rule, one run', async () => {
      const world = await open();
      const { turn, call, exec, running } = await runRequested(world, {
        toolName: 'WebFetch',
        args: { url: 'https://example.com' },
      });
      expect(await world.rpc({ callId: call.callId, optionId: 'allow-session' })).toMatchObject({
        status: 'applied',
      });
      await world.streamAnswer(call.callId, 'allow-session');
      expect(await world.rpc({ callId: call.callId, optionId: 'allow-session' })).toMatchObject({
        status: 'already_resolved',
      });
      await running;
      turn.end();
      const messages = await world.messages();
      expect(exec.calls).toHaveLength(1);
      expect(world.agent.gate.listRules()).toHaveLength(1);
      expect(labels(messages).filter((l) => l.startsWith('tool-call-end'))).toEqual(['tool-call-end']);
    });
  });

  describe('9. conflicting answers from two devices', () => {
    it('exactly one wins, the loser is told, the record names the winner, and a replay agrees', async () => {
      const world = await open();
      const turn = world.agent.writer.turn();
      const call = turn.toolCall({ toolName: 'bash', args: { command: 'ls' } });
      const decision = call.requestPermission();
      await world.requested(call.callId);
      const [rpc] = await Promise.all([
        world.rpc({ callId: call.callId, optionId: 'allow-once' }),
        world.streamAnswer(call.callId, 'deny'),
      ]);
      const won = await decision;
      const messages = await world.messages();
      if (won.via === 'rpc') {
        expect(rpc).toMatchObject({ status: 'applied' });
      } else {
        expect(rpc).toMatchObject({ status: 'already_resolved', decision: { outcome: 'deny' } });
      }
      const replay = fold(messages).call(call.callId)!.permission!.response!;
      expect(replay.optionId).toBe(won.optionId);
      turn.end();
    });
  });

  describe('10. bad inputs', () => {
    it('each gets its typed result, the request stays pending, nothing runs, and a valid answer still works', async () => {
      const world = await open({ ceiling: 'acceptEdits' });
      const { turn, call, exec, running } = await runRequested(world, {
        toolName: 'Bash',
        args: { command: 'ls' },
      });
      const id = call.callId;
      const cases: Array<[unknown, string]> = [
        [{ callId: 'nope', optionId: 'allow-once' }, 'permissions.unknown_request'],
        [{ callId: id, optionId: 'allow-forever' }, 'permissions.invalid_option'],
        ['allow', 'permissions.invalid_payload'],
        [[1, 2], 'permissions.invalid_payload'],
        [{ callId: 7, optionId: 'allow-once' }, 'permissions.invalid_payload'],
        [{ callId: id, optionId: 'allow-once', pad: 'x'.repeat(100_000) }, 'permissions.invalid_payload'],
        [{ id, approved: true, decision: 'denied' }, 'permissions.invalid_payload'],
        [{ callId: id, optionId: 'allow-once', id, approved: true }, 'permissions.invalid_payload'],
        [{ id, approved: true, mode: 'bypassPermissions' }, 'permissions.mode_not_allowed'],
        [{ id, approved: true, mode: 'turbo' }, 'permissions.mode_not_allowed'],
        [{ id, approved: true, allowTools: ['Bash'] }, 'permissions.rule_mismatch'],
        [{ id, approved: true, updatedInput: 'rm' }, 'permissions.invalid_payload'],
      ];
      for (const [body, code] of cases) {
        expect(await world.rpc(body), JSON.stringify(body).slice(0, 80)).toMatchObject({
          status: 'error',
          code,
        });
      }
      await world.streamAnswer(id, 'allow-forever');
      expect(world.agent.gate.pendingCallIds).toEqual([id]);
      expect(exec.calls).toHaveLength(0);
      expect(await world.rpc({ id, approved: true, decision: 'approved' })).toMatchObject({
        status: 'applied',
      });
      expect(await running).toMatchObject({ status: 'done' });
      turn.end();
    });

    it('answers are not_allowed while remote answers are refused; the local program can still answer', async () => {
      let remote = false;
      const world = await open({ acceptRemoteAnswers: () => remote });
      const call = world.agent.writer.turn().toolCall({ toolName: 'Bash', args: { command: 'ls' } });
      const decision = call.requestPermission();
      expect(await world.rpc({ callId: call.callId, optionId: 'allow-once' })).toMatchObject({
        code: 'permissions.not_allowed',
      });
      expect(world.agent.gate.pendingCallIds).toEqual([call.callId]);
      remote = true;
      expect(world.agent.gate.answer({ callId: call.callId, optionId: 'deny' })).toMatchObject({
        status: 'applied',
      });
      expect(await decision).toMatchObject({ outcome: 'deny', via: 'local' });
    });

    it('edited input that fails validation is invalid_updated_input; valid input is what runs', async () => {
      const world = await open({ validateUpdatedInput: (_tool, input) => typeof input.command === 'string' });
      const call = world.agent.writer.turn().toolCall({ toolName: 'Bash', args: { command: 'ls' } });
      const exec = executor();
      const running = call.run(exec.run);
      await world.requested(call.callId);
      expect(
        await world.rpc({ id: call.callId, approved: true, updatedInput: { command: 42 } }),
      ).toMatchObject({ code: 'permissions.invalid_updated_input' });
      expect(
        await world.rpc({ id: call.callId, approved: true, updatedInput: { command: 'ls -la' } }),
      ).toMatchObject({ status: 'applied' });
      await running;
      expect(exec.calls).toEqual([{ command: 'ls -la' }]);
    });
  });

  describe('11. parallel requests', () => {
    it('three calls, two from a subagent, answered in reverse order: each gets its own decision', async () => {
      const world = await open();
      const turn = world.agent.writer.turn();
      const task = turn.toolCall({ toolName: 'task', agentTitle: 'helper' });
      const sub = task.scope();
      const calls: ToolCall[] = [
        turn.toolCall({ toolName: 'Bash', args: { command: 'ls' } }),
        sub.toolCall({ toolName: 'Bash', args: { command: 'pwd' } }),
        sub.toolCall({ toolName: 'Edit', args: { file_path: 'x' } }),
      ];
      const decisions = calls.map((c) => c.requestPermission());
      await until(() => world.agent.gate.pendingCallIds.length === 3);
      const answers = ['allow-once', 'deny', 'allow-once'];
      for (let i = 2; i >= 0; i--) await world.rpc({ callId: calls[i]!.callId, optionId: answers[i] });
      const resolved = await Promise.all(decisions);
      expect(resolved.map((d) => d.optionId)).toEqual(answers);
      for (const c of calls) if (!c.ended) c.end();
      task.end();
      turn.end();
      const messages = await world.messages();
      const requests = messages.filter((m) => m.type === 'permission-request');
      expect(requests.map((r) => r.agentId)).toEqual([undefined, task.agentId, task.agentId]);
      expect(labels(messages).at(-1)).toBe('turn-end(completed)');
    });
  });

  describe('12. re-evaluation after allow-always', () => {
    it('answering one npm test with allow-always settles the other pending npm test by rule', async () => {
      const world = await open();
      const turn = world.agent.writer.turn();
      const a = turn.toolCall({ toolName: 'Bash', args: { command: 'npm test' } });
      const b = turn.toolCall({ toolName: 'Bash', args: { command: 'npm test' } });
      const [da, db] = [a.requestPermission(), b.requestPermission()];
      await until(() => world.agent.gate.pendingCallIds.length === 2);
      await world.rpc({ callId: a.callId, optionId: 'allow-session' });
      expect(await da).toMatchObject({ source: 'user', kind: 'allow-always' });
      expect(await db).toMatchObject({ outcome: 'allow', source: 'rule', rule: 'Bash(npm test)' });
    });

    it('with reevaluatePending: false the other stays pending; a user switch to acceptEdits settles a pending Edit', async () => {
      const world = await open({ reevaluatePending: false });
      const turn = world.agent.writer.turn();
      const a = turn.toolCall({ toolName: 'Bash', args: { command: 'npm test' } });
      const b = turn.toolCall({ toolName: 'Bash', args: { command: 'npm test' } });
      const da = a.requestPermission();
      void b.requestPermission();
      await world.rpc({ callId: a.callId, optionId: 'allow-session' });
      await da;
      expect(world.agent.gate.pendingCallIds).toEqual([b.callId]);

      const edits = await open({ workspaceRoot: '/work/app' });
      const edit = edits.agent.writer.turn().toolCall({ toolName: 'Edit', args: { file_path: 'src/a.ts' } });
      const decision = edit.requestPermission();
      edits.agent.gate.setMode('acceptEdits', 'user');
      expect(await decision).toMatchObject({ outcome: 'allow', source: 'mode' });
    });
  });

  describe('13. persistence across restart', () => {
    it('rules come back identical from the stream; a revoke is recorded and survives too', async () => {
      const world = await open({ workspaceRoot: process.cwd() });
      const turn = world.agent.writer.turn();
      const fetchCall = turn.toolCall({ toolName: 'Grep', args: { pattern: 'a' } });
      const rm = turn.toolCall({ toolName: 'Bash', args: { command: 'rm -rf build' } });
      const [df, dr] = [fetchCall.requestPermission(), rm.requestPermission()];
      await until(() => world.agent.gate.pendingCallIds.length === 2);
      await world.rpc({ callId: fetchCall.callId, optionId: 'allow-session' });
      await world.rpc({ callId: rm.callId, optionId: 'deny-always' });
      await Promise.all([df, dr]);
      fetchCall.end();
      turn.end();
      const before = world.agent.gate.listRules();
      expect(before.map((r) => r.id)).toEqual(['allow:Grep', 'deny:Bash(rm -rf build)']);

      const agent = await world.restart({ workspaceRoot: process.cwd() });
      expect(agent.gate.listRules()).toEqual(before);
      const t2 = agent.writer.turn();
      expect(
        await t2.toolCall({ toolName: 'Grep', args: { pattern: 'b' } }).requestPermission(),
      ).toMatchObject({ source: 'rule', outcome: 'allow' });
      expect(
        await t2.toolCall({ toolName: 'Bash', args: { command: 'rm -rf build' } }).requestPermission(),
      ).toMatchObject({ source: 'rule', outcome: 'deny' });
      expect(agent.gate.revokeRule('allow:Grep')).toBe(true);
      t2.end();

      const again = await world.restart({ workspaceRoot: process.cwd() });
      expect(again.gate.listRules().map((r) => r.id)).toEqual(['deny:Bash(rm -rf build)']);
      const t3 = again.writer.turn();
      const refetch = t3.toolCall({ toolName: 'Grep', args: { pattern: 'c' } });
      void refetch.requestPermission();
      expect(again.gate.pendingCallIds).toEqual([refetch.callId]);
    });
  });

  describe('14. orphaned request after a crash', () => {
    it('a new process closes it; the fold shows nothing pending; an old answer is already_resolved', async () => {
      const world = await open();
      const call = world.agent.writer.turn().toolCall({ toolName: 'Bash', args: { command: 'ls' } });
      void call.requestPermission();
      await until(() => world.agent.gate.pendingCallIds.length === 1);
      const agent = await world.restart(undefined, { abandon: true });
      const messages = await world.messages();
      expect(foldPermissions(messages)).toEqual([]);
      const shown = labels(messages);
      const asked = shown.lastIndexOf('permission-request');
      expect(shown[asked + 1]).toBe('tool-call-end(cancelled)');
      // connect() as a successor also ends the dead turn (docs/recovery.md); a gate alone leaves it.
      expect(shown.slice(asked + 2).every((l) => l.startsWith('turn-end'))).toBe(true);
      // The old answer is refused: the gate that took the request up says how it ended; a gate made
      // after connect() took the session over (this relay world's) finds the request ended.
      const late = (await world.rpc({ callId: call.callId, optionId: 'allow-once' })) as Record<
        string,
        unknown
      >;
      if (late.status === 'already_resolved')
        expect(late).toMatchObject({ decision: { outcome: 'cancelled', source: 'shutdown' } });
      else expect(late).toMatchObject({ status: 'error', code: 'permissions.unknown_request' });
      expect(agent.gate.pendingCallIds).toEqual([]);
    });
  });

  describe('15. client fold', () => {
    it('foldPermissions of the stream equals the runtime pending set after every step', async () => {
      const world = await open();
      const { writer, gate } = world.agent;
      const turn = writer.turn();
      const check = async () => {
        await until(async () => {
          const fromStream = foldPermissions(await world.messages()).map((r) => r.callId);
          return JSON.stringify(fromStream) === JSON.stringify(gate.pendingCallIds);
        });
      };
      const a = turn.toolCall({ toolName: 'Bash', args: { command: 'a' } });
      const b = turn.toolCall({ toolName: 'Bash', args: { command: 'b' } });
      const c = turn.toolCall({ toolName: 'Bash', args: { command: 'c' } });
      const da = a.requestPermission();
      await check();
      const db = b.requestPermission();
      const dc = c.requestPermission();
      await check();
      await world.rpc({ callId: b.callId, optionId: 'deny' });
      await check();
      await world.streamAnswer(a.callId, 'allow-once');
      await da;
      await check();
      turn.end();
      await Promise.all([db, dc]);
      await check();
      expect(gate.pendingCallIds).toEqual([]);
    });
  });

  describe('16. timeouts', () => {
    it('a deadline resolves deny with source timeout; a later answer is already_resolved', async () => {
      const world = await open();
      const call = world.agent.writer.turn().toolCall({ toolName: 'Bash', args: { command: 'ls' } });
      const decision = await call.requestPermission({ timeoutMs: 50, onTimeout: 'deny' });
      expect(decision).toEqual({ outcome: 'deny', source: 'timeout', message: TIMEOUT_MESSAGE });
      expect(call.error).toBe(TIMEOUT_MESSAGE);
      expect(await world.rpc({ callId: call.callId, optionId: 'allow-once' })).toMatchObject({
        status: 'already_resolved',
      });
    });

    it("onTimeout: 'allow' is refused at configuration, per request and per gate", async () => {
      const world = await open();
      const call = world.agent.writer.turn().toolCall({ toolName: 'Bash', args: { command: 'ls' } });
      expect(() => call.requestPermission({ timeoutMs: 10, onTimeout: 'allow' as never })).toThrowError(
        expect.objectContaining({ code: 'permissions.unsafe_timeout_action' }),
      );
      await expect(
        PermissionGate.create({ writer: world.agent.writer, onTimeout: 'allow' as never }),
      ).rejects.toMatchObject({
        code: 'permissions.unsafe_timeout_action',
      });
    });
  });

  describe('17. mode change mid-turn', () => {
    it('under a ceiling raised to bypass, an explicit switch to yolo settles the pending request; back to default takes effect', async () => {
      const world = await open({ ceiling: 'bypassPermissions' });
      const turn = world.agent.writer.turn();
      const call = turn.toolCall({ toolName: 'Bash', args: { command: 'make' } });
      const decision = call.requestPermission();
      expect(world.agent.gate.setMode('yolo', 'user')).toBeUndefined();
      expect(await decision).toMatchObject({ outcome: 'allow', source: 'mode' });
      expect(
        await turn.toolCall({ toolName: 'Bash', args: { command: 'make install' } }).requestPermission(),
      ).toMatchObject({ source: 'mode' });
      // Lowering always works: the user's pick of default is not ignored.
      expect(world.agent.gate.setMode('default', 'user')).toBeUndefined();
      expect(world.agent.gate.mode).toBe('default');
      const next = turn.toolCall({ toolName: 'Bash', args: { command: 'make clean' } });
      void next.requestPermission();
      expect(world.agent.gate.pendingCallIds).toEqual([next.callId]);
      turn.end();
      expect(labels(await world.messages())).toEqual(
        expect.arrayContaining([
          'service(Permission mode changed to bypassPermissions (by user).)',
          'service(Permission mode changed to default (by user).)',
        ]),
      );
    });

    it('by default a remote bypass is mode_not_allowed and noted; an invalid mode string is refused', async () => {
      const world = await open();
      expect(world.agent.gate.ceiling).toBe('safe-yolo');
      expect(world.agent.gate.setMode('bypassPermissions', 'user')).toMatchObject({
        code: 'permissions.mode_not_allowed',
      });
      expect(world.agent.gate.setMode('warp', 'user')).toMatchObject({
        code: 'permissions.mode_not_allowed',
      });
      expect(world.agent.gate.mode).toBe('default');
      expect(labels(await world.messages())).toEqual([
        'service(Permission mode "bypassPermissions" refused: it is above the ceiling safe-yolo; the mode stays default.)',
        'service(Permission mode "warp" refused: it is not a permission mode; the mode stays default.)',
      ]);
    });
  });

  describe('21. builtin spoofing', () => {
    it('change_title is allowed; look-alikes ask', async () => {
      const world = await open();
      const turn = world.agent.writer.turn();
      expect(
        await turn.toolCall({ toolName: 'change_title', args: { title: 'x' } }).requestPermission(),
      ).toMatchObject({
        outcome: 'allow',
        source: 'rule',
        rule: 'change_title',
      });
      for (const name of ['change_title_and_run_command', 'x_change_title_y', 'mcp__evil__change_title']) {
        const call = turn.toolCall({ toolName: name, args: {} });
        void call.requestPermission();
        expect(world.agent.gate.pendingCallIds, name).toContain(call.callId);
      }
      turn.end();
    });
  });

  describe("today's app", () => {
    it('mirrors pending and completed requests into agentState', async () => {
      const world = await open();
      const call = world.agent.writer.turn().toolCall({ toolName: 'Bash', args: { command: 'ls' } });
      const decision = call.requestPermission();
      await until(
        async () => Object.keys(((await world.agentState()).requests as object) ?? {}).length === 1,
      );
      // Keyed by the request record's id, with toolUseId naming the call: the app joins the two.
      const request = (await world.messages()).find((m) => m.type === 'permission-request')!;
      expect((await world.agentState()).requests).toMatchObject({
        [request.id]: { tool: 'Bash', arguments: { command: 'ls' }, toolUseId: call.callId },
      });
      // The app answers with the key it was shown: the request's own id.
      await world.rpc({ id: request.id, approved: true });
      await decision;
      await until(
        async () => Object.keys(((await world.agentState()).requests as object) ?? {}).length === 0,
      );
      expect((await world.agentState()).completedRequests).toMatchObject({
        [request.id]: { tool: 'Bash', status: 'approved', decision: 'approved', toolUseId: call.callId },
      });
    });
  });
});

describe('audit and push (in memory)', () => {
  let world: GateWorld;
  beforeEach(async () => {
    world = await worlds[0]!.create({ audit: 'full', rules: { allow: ['Bash(ls)'] } });
  });
  afterEach(async () => {
    await world.close();
  });

  it("audit: 'full' notes automatic decisions as service messages naming the rule, never as a user response", async () => {
    const turn = world.agent.writer.turn();
    const call = turn.toolCall({ toolName: 'Bash', args: { command: 'ls' } });
    expect(await call.requestPermission()).toMatchObject({ source: 'rule' });
    call.end();
    turn.end();
    const messages = await world.messages();
    expect(messages.some((m) => m.type === 'permission-response')).toBe(false);
    const note = messages.find((m) => m.type === 'service');
    expect(note).toMatchObject({ parentId: call.callId });
    expect(note?.type === 'service' && note.text).toContain('Bash(ls)');
  });
});
