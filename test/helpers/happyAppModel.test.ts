import { describe, expect, test } from 'vitest';
import { appReads, compactLabel } from './happyAppModel.js';
import type { AppRecord } from './happyAppModel.js';

// The model of today's app against the measured facts it is written from (docs/wire.md §6.6): if
// these hold, a v1 stream that looks right in the model looks right in the app.

const UUID = '0b5c2f0e-8d1c-4a57-9a3e-6f1d2c3b4a5e';
let seq = 0;
const session = (ev: Record<string, unknown>, extra: Record<string, unknown> = {}): AppRecord => {
  seq += 1;
  return {
    seq,
    record: {
      role: 'session',
      content: { id: `r${seq}`, time: 1000 + seq, role: 'agent', turn: 't1', ...extra, ev },
      meta: { sentFrom: 'cli' },
    },
  };
};
const start = (call: string, name = 'step', description = '', args: Record<string, unknown> = {}) =>
  session({ t: 'tool-call-start', call, name, title: 'ignored', description, args });
const end = (call: string, extra: Record<string, unknown> = {}) =>
  session({ t: 'tool-call-end', call }, extra);
const acpResult = (callId: string, output: unknown): AppRecord => {
  seq += 1;
  return {
    seq,
    record: {
      role: 'agent',
      content: {
        type: 'acp',
        provider: 'claude',
        data: { type: 'tool-result', callId, output, id: `a${seq}`, isError: true },
      },
    },
  };
};

describe('the model of the app', () => {
  test.each([
    ['step', '', {}, 'Step'],
    ['step', 'Build the app', {}, 'Step: Build the app'],
    ['step', 'Build the app', { path: 'src/app.ts' }, 'Build the app'],
    ['run_build', '', {}, 'Run Build'],
  ])('labels %s / %j / %j as %j', (name, description, args, label) => {
    expect(compactLabel(name, description, args)).toBe(label);
  });

  test('ignores the title and drops agent envelopes without turn, v2 records and UUID subagents', () => {
    const records = [
      start('c1', 'step', 'Build'),
      session({ t: 'text', text: 'no turn' }, { turn: undefined }),
      { seq: 90, record: { id: 'x', time: 1, role: 'agent', type: 'text', turn: 't1', text: 'v2' } },
      session({ t: 'text', text: 'uuid' }, { subagent: UUID }),
    ];
    const screen = appReads(records, {}, 'live');
    expect(screen.dropped).toBe(3);
    expect(screen.tools.map((t) => t.label)).toEqual(['Step: Build']);
  });

  test('start, end, then a result: an empty output live, the result after a reload', () => {
    const records = [start('c1'), end('c1'), acpResult('c1', 'boom')];
    expect(appReads(records, {}, 'live').tools[0]!.result).toEqual({ output: null, isError: false });
    expect(appReads(records, {}, 'reload').tools[0]!.result).toEqual({ output: 'boom', isError: true });
  });

  test('a result in a newer reload page than its call leaves the call spinning', () => {
    const records = [
      start('c1'),
      ...Array.from({ length: 100 }, (_, i) => session({ t: 'text', text: `${i}` })),
      acpResult('c1', 'late'),
    ];
    expect(appReads(records, {}, 'catch-up').tools[0]!.state).toBe('error');
    expect(appReads(records, {}, 'reload').tools[0]!.state).toBe('running');
  });

  test('session-format nesting: under a Task live, flat after a reload, a nested parent twice live', () => {
    const records = [
      start('task1', 'Task', 'Explore'),
      start('inner1', 'Task', 'Deeper', {}),
      session(
        { t: 'tool-call-start', call: 'leaf1', name: 'Read', title: '', description: 'Read a', args: {} },
        { subagent: 'inner1' },
      ),
    ];
    // `inner1` is nested under task1 through its subagent field.
    (records[1]!.record as { content: Record<string, unknown> }).content.subagent = 'task1';
    const live = appReads(records, {}, 'live');
    expect(live.rows.filter((r) => r.kind === 'tool').map((r) => r.kind === 'tool' && r.tool.id)).toEqual([
      'task1',
      'inner1',
    ]);
    const ids = live.tools.map((t) => t.id);
    expect(ids.filter((id) => id === 'inner1')).toHaveLength(2);
    const reload = appReads(records, {}, 'reload');
    expect(reload.rows.map((r) => r.kind === 'tool' && r.tool.id)).toEqual(['task1', 'inner1', 'leaf1']);
  });

  test('agentState: denied and canceled show denied, requests show pending, a nested call gets a second row', () => {
    const records = [
      start('task1', 'Task', 'Explore'),
      session(
        {
          t: 'tool-call-start',
          call: 'n1',
          name: 'Bash',
          title: '',
          description: 'Run',
          args: { command: 'ls' },
        },
        { subagent: 'task1' },
      ),
      start('d1', 'Bash', 'Delete', { command: 'rm' }),
      acpResult('d1', 'denied by the user'),
      start('p1', 'Bash', 'Push', { command: 'git push' }),
    ];
    const agentState = {
      completedRequests: {
        d1: { tool: 'Bash', arguments: {}, status: 'denied', createdAt: 1, completedAt: 2 },
      },
      requests: {
        p1: { tool: 'Bash', arguments: {}, createdAt: 3 },
        n1: { tool: 'Bash', arguments: {}, createdAt: 4 },
      },
    };
    const screen = appReads(records, agentState, 'catch-up');
    const state = (id: string) => screen.tools.filter((t) => t.id === id).map((t) => t.state);
    expect(state('d1')).toEqual(['denied']);
    expect(state('p1')).toEqual(['pending']);
    expect(state('n1')).toEqual(['pending', 'pending']);
  });

  test('a file event is a completed `file` call drawn as an image box captioned with its name', () => {
    const records = [
      session({
        t: 'file',
        ref: 'r1',
        name: 'shot.png',
        size: 1,
        image: { width: 640, height: 480, thumbhash: 'x' },
      }),
      session({ t: 'file', ref: 'r2', name: 'report.pdf', size: 9, mimeType: 'application/pdf' }),
    ];
    const screen = appReads(records, {}, 'live');
    expect(screen.tools.map((t) => [t.state, t.image])).toEqual([
      ['completed', { ref: 'r1', caption: 'shot.png', width: 280, height: 210 }],
      ['completed', { ref: 'r2', caption: 'report.pdf', width: 280, height: 210 }],
    ]);
  });

  test('TodoWrite: the card shows its checklist, a valid result that is not an error becomes the todo list, a reset empties it', () => {
    const todos = [
      { content: 'Read', status: 'completed', id: '1' },
      { content: 'Write', status: 'in_progress', priority: 'high', id: '2' },
    ];
    const result = (callId: string, output: unknown, isError: boolean, createdAt: number): AppRecord => {
      seq += 1;
      return {
        seq,
        createdAt,
        record: {
          role: 'agent',
          content: {
            type: 'acp',
            provider: 'claude',
            data: { type: 'tool-result', callId, output, id: `a${seq}`, isError },
          },
        },
      };
    };
    const status = (message: string, createdAt: number): AppRecord => {
      seq += 1;
      return {
        seq,
        createdAt,
        record: {
          role: 'agent',
          content: { type: 'event', id: `e${seq}`, data: { type: 'message', message } },
        },
      };
    };
    const good = [
      start('p1', 'TodoWrite', 'Plan', { todos }),
      result('p1', { newTodos: todos }, false, 5000),
    ];
    const screen = appReads(good, {}, 'catch-up');
    expect(screen.tools[0]).toMatchObject({ name: 'TodoWrite', checklist: todos, state: 'completed' });
    expect(screen.todos).toEqual(todos);
    // An error result, or items of another shape, leave the list as it was.
    const bad = [
      ...good,
      start('p2', 'TodoWrite', 'Plan', { todos: [] }),
      result('p2', { newTodos: [] }, true, 6000),
      start('p3', 'TodoWrite', 'Plan', { todos: [] }),
      result('p3', { newTodos: [{ content: 'x', status: 'done' }] }, false, 7000),
      // An older result does not replace a newer list.
      start('p4', 'TodoWrite', 'Plan', { todos: [] }),
      result('p4', { newTodos: [] }, false, 4000),
    ];
    expect(appReads(bad, {}, 'catch-up').todos).toEqual(todos);
    expect(appReads([...good, status('Context was reset', 8000)], {}, 'catch-up').todos).toEqual([]);
    expect(
      appReads([start('p5', 'TodoWrite', 'Plan', { todos }), end('p5')], {}, 'live').todos,
    ).toBeUndefined();
  });
});
