import { describe, expect, it } from 'vitest';
import type { SessionMessage } from '../../../packages/sdk/src/protocol/sessionMessage.js';
import { createV1Encoder } from '../../../packages/sdk/src/protocol/v1/toV1.js';
import type { V1EncoderOptions } from '../../../packages/sdk/src/protocol/v1/toV1.js';
import { expectValidV1Stream } from './helpers.js';

// One test per row of the table in createV1Encoder's TSDoc and docs/v1-format.md.

const META = { sentFrom: 'cli' };

function encoder(options: V1EncoderOptions = {}) {
  let n = 0;
  const e = createV1Encoder({ createId: () => `gen${++n}`, ...options });
  return (...messages: SessionMessage[]) => messages.flatMap((m) => e.encode(m));
}

const session = (content: Record<string, unknown>) => ({ role: 'session', content, meta: META });
const turnStart = (time = 1): SessionMessage => ({
  id: 'm0',
  time,
  role: 'agent',
  type: 'turn-start',
  turn: 't1',
});

describe('v2 → v1, row by row', () => {
  it('turn-start → ev turn-start with the same turn', () => {
    expect(encoder()(turnStart(100))).toEqual([
      session({ id: 'm0', time: 100, role: 'agent', turn: 't1', ev: { t: 'turn-start' } }),
    ]);
  });

  it('turn-end → ev turn-end with its status', () => {
    const out = encoder()(turnStart(), {
      id: 'm1',
      time: 2,
      role: 'agent',
      type: 'turn-end',
      turn: 't1',
      status: 'failed',
    });
    expect(out[1]).toEqual(
      session({ id: 'm1', time: 2, role: 'agent', turn: 't1', ev: { t: 'turn-end', status: 'failed' } }),
    );
  });

  it('agent text → ev text; thinking true, false and absent are kept as given', () => {
    const encode = encoder();
    const out = encode(
      turnStart(),
      { id: 'a', time: 2, role: 'agent', type: 'text', turn: 't1', text: 'plan', thinking: true },
      { id: 'b', time: 3, role: 'agent', type: 'text', turn: 't1', text: 'visible', thinking: false },
      { id: 'c', time: 4, role: 'agent', type: 'text', turn: 't1', text: 'plain' },
    );
    expect(out.slice(1).map((r) => r.role === 'session' && r.content.ev)).toEqual([
      { t: 'text', text: 'plan', thinking: true },
      { t: 'text', text: 'visible', thinking: false },
      { t: 'text', text: 'plain' },
    ]);
  });

  it('user text → a user envelope without turn', () => {
    expect(encoder()({ id: 'u1', time: 5, role: 'user', type: 'text', text: 'Find TODOs' })).toEqual([
      session({ id: 'u1', time: 5, role: 'user', ev: { t: 'text', text: 'Find TODOs' } }),
    ]);
  });

  it('service in a turn → ev service', () => {
    const out = encoder()(turnStart(), {
      id: 's1',
      time: 2,
      role: 'agent',
      type: 'service',
      turn: 't1',
      text: 'Context window compacted',
    });
    expect(out[1]).toEqual(
      session({
        id: 's1',
        time: 2,
        role: 'agent',
        turn: 't1',
        ev: { t: 'service', text: 'Context window compacted' },
      }),
    );
  });

  it('service without a turn → a legacy event message (status line), since v1 would drop it', () => {
    expect(encoder()({ id: 's2', time: 7, role: 'agent', type: 'service', text: 'Reconnected' })).toEqual([
      {
        role: 'agent',
        content: { type: 'event', id: 's2', data: { type: 'message', message: 'Reconnected' } },
        meta: META,
      },
    ]);
  });

  it('tool-call-start → ev tool-call-start: call = callId, name = toolName, title, description, args', () => {
    const out = encoder()(turnStart(), {
      id: 'c1',
      time: 2,
      role: 'agent',
      type: 'tool-call-start',
      turn: 't1',
      callId: 'toolu_01',
      toolName: 'Bash',
      title: 'Run ls',
      description: 'List files',
      args: { command: 'ls' },
    });
    expect(out[1]).toEqual(
      session({
        id: 'c1',
        time: 2,
        role: 'agent',
        turn: 't1',
        ev: {
          t: 'tool-call-start',
          call: 'toolu_01',
          name: 'Bash',
          title: 'Run ls',
          description: 'List files',
          args: { command: 'ls' },
        },
      }),
    );
  });

  it('tool-call-end without error → ev tool-call-end {call} only', () => {
    const out = encoder()(turnStart(), {
      id: 'e1',
      time: 2,
      role: 'agent',
      type: 'tool-call-end',
      turn: 't1',
      callId: 'toolu_01',
    });
    expect(out.slice(1)).toEqual([
      session({ id: 'e1', time: 2, role: 'agent', turn: 't1', ev: { t: 'tool-call-end', call: 'toolu_01' } }),
    ]);
  });

  it('tool-call-end with error → acp tool-result {isError: true} first, then the end carrying the error', () => {
    const out = encoder({ provider: 'codex' })(turnStart(), {
      id: 'e2',
      time: 2,
      role: 'agent',
      type: 'tool-call-end',
      turn: 't1',
      callId: 'toolu_02',
      error: 'Command exited with code 1',
    });
    expect(out.slice(1)).toEqual([
      {
        role: 'agent',
        content: {
          type: 'acp',
          provider: 'codex',
          data: {
            type: 'tool-result',
            callId: 'toolu_02',
            output: 'Command exited with code 1',
            id: 'gen1',
            isError: true,
          },
        },
        meta: META,
      },
      session({
        id: 'e2',
        time: 2,
        role: 'agent',
        turn: 't1',
        ev: { t: 'tool-call-end', call: 'toolu_02', output: 'Command exited with code 1', isError: true },
      }),
    ]);
  });

  it('permission-request and permission-response → no record', () => {
    const encode = encoder();
    expect(
      encode({
        id: 'p1',
        time: 1,
        role: 'agent',
        type: 'permission-request',
        turn: 't1',
        callId: 'c',
        toolName: 'bash',
        title: 'Run',
        options: [{ id: 'ok', label: 'Allow', kind: 'allow-once' }],
      }),
    ).toEqual([]);
    expect(
      encode({ id: 'p2', time: 2, role: 'user', type: 'permission-response', callId: 'c', optionId: 'ok' }),
    ).toEqual([]);
  });

  it('photo → ev file with image {width, height, thumbhash}; name from the ref, size 0', () => {
    const encode = encoder();
    const out = encode(
      turnStart(),
      {
        id: 'ph1',
        time: 2,
        role: 'agent',
        type: 'photo',
        turn: 't1',
        ref: 'sessions/S/attachments/k9v2.enc',
        thumbhash: 'IPgNzaR4d3iAiHiHd4iIeI+F5/iI',
        width: 640,
        height: 480,
      },
      {
        id: 'ph2',
        time: 3,
        role: 'user',
        type: 'photo',
        ref: 'machine-file:///home/me/shot.png',
        thumbhash: 'abc',
        width: 10,
        height: 20,
      },
    );
    expect(out.slice(1)).toEqual([
      session({
        id: 'ph1',
        time: 2,
        role: 'agent',
        turn: 't1',
        ev: {
          t: 'file',
          ref: 'sessions/S/attachments/k9v2.enc',
          name: 'k9v2',
          size: 0,
          image: { width: 640, height: 480, thumbhash: 'IPgNzaR4d3iAiHiHd4iIeI+F5/iI' },
        },
      }),
      session({
        id: 'ph2',
        time: 3,
        role: 'user',
        ev: {
          t: 'file',
          ref: 'machine-file:///home/me/shot.png',
          name: 'shot.png',
          size: 0,
          image: { width: 10, height: 20, thumbhash: 'abc' },
        },
      }),
    ]);
  });

  it('video → ev file with size, mimeType and the poster as image; the duration is lost', () => {
    const out = encoder()(turnStart(), {
      id: 'v1',
      time: 2,
      role: 'agent',
      type: 'video',
      turn: 't1',
      ref: 'media/up_vid789',
      thumbhash: '3OcRJYB4d3h/iIeHeEh3eIhw+j2w',
      width: 1920,
      height: 1080,
      durationMs: 45000,
      mimeType: 'video/mp4',
      size: 104857600,
    });
    expect(out[1]).toEqual(
      session({
        id: 'v1',
        time: 2,
        role: 'agent',
        turn: 't1',
        ev: {
          t: 'file',
          ref: 'media/up_vid789',
          name: 'up_vid789',
          size: 104857600,
          mimeType: 'video/mp4',
          image: { width: 1920, height: 1080, thumbhash: '3OcRJYB4d3h/iIeHeEh3eIhw+j2w' },
        },
      }),
    );
  });

  it('file → ev file {ref, name, size, mimeType}, for either role', () => {
    const file = { ref: 'media/up_def456', name: 'report.pdf', size: 2048, mimeType: 'application/pdf' };
    const out = encoder()(
      turnStart(),
      { id: 'f1', time: 2, role: 'agent', type: 'file', turn: 't1', ...file },
      { id: 'f2', time: 3, role: 'user', type: 'file', ...file },
    );
    expect(out.slice(1)).toEqual([
      session({ id: 'f1', time: 2, role: 'agent', turn: 't1', ev: { t: 'file', ...file } }),
      session({ id: 'f2', time: 3, role: 'user', ev: { t: 'file', ...file } }),
    ]);
  });

  it('user video → a user ev file', () => {
    const out = encoder()({
      id: 'uv',
      time: 1,
      role: 'user',
      type: 'video',
      ref: 'media/v',
      thumbhash: 'h',
      width: 2,
      height: 2,
      durationMs: 1,
      mimeType: 'video/webm',
      size: 9,
    });
    expect(out).toEqual([
      session({
        id: 'uv',
        time: 1,
        role: 'user',
        ev: {
          t: 'file',
          ref: 'media/v',
          name: 'v',
          size: 9,
          mimeType: 'video/webm',
          image: { width: 2, height: 2, thumbhash: 'h' },
        },
      }),
    ]);
  });
});

describe('subagents', () => {
  const call = (id: string, callId: string, extra: Record<string, unknown> = {}): SessionMessage =>
    ({
      id,
      time: 2,
      role: 'agent',
      type: 'tool-call-start',
      turn: 't1',
      callId,
      toolName: 'task',
      title: 'Explore',
      description: '',
      args: { prompt: 'go' },
      ...extra,
    }) as SessionMessage;
  const text = (id: string, agentId: string, parentId: string | undefined, t = 'hi'): SessionMessage => ({
    id,
    time: 3,
    role: 'agent',
    type: 'text',
    turn: 't1',
    text: t,
    agentId,
    ...(parentId !== undefined ? { parentId } : {}),
  });
  const end = (id: string, callId: string, extra: Record<string, unknown> = {}): SessionMessage =>
    ({ id, time: 9, role: 'agent', type: 'tool-call-end', turn: 't1', callId, ...extra }) as SessionMessage;
  const subagentOf = (r: unknown) => (r as { content: { subagent?: string } }).content.subagent;
  const evOf = (r: unknown) => (r as { content: { ev: { t: string } } }).content.ev;

  it('a call that names a subagent and whose id is not cuid2 advertises a fresh one in args.sessionSubagent', () => {
    const out = encoder()(
      turnStart(),
      call('c', 'toolu_01', { agentTitle: 'Auth research' }),
      text('x', 'agent_sub1', 'toolu_01'),
      end('e', 'toolu_01'),
    );
    expect(evOf(out[1])).toMatchObject({ args: { prompt: 'go', sessionSubagent: 'gen1' } });
    expect(out.slice(2).map((r) => [evOf(r).t, subagentOf(r)])).toEqual([
      ['start', 'gen1'],
      ['text', 'gen1'],
      ['stop', 'gen1'],
      ['tool-call-end', undefined],
    ]);
    expect(evOf(out[2])).toEqual({ t: 'start', title: 'Auth research' });
    expectValidV1Stream(out);
  });

  it("the v2 agentId is never used as is: it is mapped to a cuid2 (here the spawning call's id)", () => {
    const out = encoder()(turnStart(), call('c', 'task1'), text('x', 'Agent_1', 'task1'), end('e', 'task1'));
    expect(out.slice(2, 4).map(subagentOf)).toEqual(['task1', 'task1']);
    expect(evOf(out[2])).toEqual({ t: 'start' });
    expectValidV1Stream(out);
  });

  it('a second agent under the same call gets its own fresh id; both stop when the call ends', () => {
    const out = encoder()(
      turnStart(),
      call('c', 'task1', { agentTitle: 'Pair' }),
      text('x', 'A', 'task1'),
      text('y', 'B', 'task1'),
      text('z', 'A', 'task1'),
      end('e', 'task1'),
    );
    expect(out.slice(2).map((r) => [evOf(r).t, subagentOf(r)])).toEqual([
      ['start', 'task1'],
      ['text', 'task1'],
      ['start', 'gen2'],
      ['text', 'gen2'],
      ['text', 'task1'],
      ['stop', 'task1'],
      ['stop', 'gen2'],
      ['tool-call-end', undefined],
    ]);
    expectValidV1Stream(out);
  });

  it('deeper parentId chains inside one agent are flattened onto its subagent id', () => {
    const out = encoder()(
      turnStart(),
      call('c', 'task1', { agentTitle: 'Sub' }),
      call('c2', 'inner1', { agentId: 'A', parentId: 'task1' }),
      text('x', 'A', 'inner1'),
      end('e2', 'inner1', { agentId: 'A', parentId: 'task1' }),
      end('e', 'task1'),
    );
    expect(out.slice(2).map((r) => [evOf(r).t, subagentOf(r)])).toEqual([
      ['start', 'task1'],
      ['tool-call-start', 'task1'],
      ['text', 'task1'],
      ['tool-call-end', 'task1'],
      ['stop', 'task1'],
      ['tool-call-end', undefined],
    ]);
    expectValidV1Stream(out);
  });

  it("a subagent's call that spawns another subagent nests it one level down, under that call", () => {
    const out = encoder()(
      turnStart(),
      call('c', 'task1', { agentTitle: 'Outer' }),
      call('c2', 'task2', { agentId: 'A', parentId: 'task1', agentTitle: 'Inner' }),
      text('x', 'B', 'task2'),
      end('e2', 'task2', { agentId: 'A', parentId: 'task1' }),
      end('e', 'task1'),
    );
    expect(out.slice(2).map((r) => [evOf(r).t, subagentOf(r)])).toEqual([
      ['start', 'task1'],
      ['tool-call-start', 'task1'],
      ['start', 'task2'],
      ['text', 'task2'],
      ['stop', 'task2'],
      ['tool-call-end', 'task1'],
      ['stop', 'task1'],
      ['tool-call-end', undefined],
    ]);
    expectValidV1Stream(out);
  });

  it('an agent without a parent call gets a fresh id and stops at turn end', () => {
    const out = encoder()(turnStart(), text('x', 'solo', undefined), {
      id: 'te',
      time: 5,
      role: 'agent',
      type: 'turn-end',
      turn: 't1',
      status: 'cancelled',
    });
    expect(out.slice(1).map((r) => [evOf(r).t, subagentOf(r)])).toEqual([
      ['start', 'gen1'],
      ['text', 'gen1'],
      ['stop', 'gen1'],
      ['turn-end', undefined],
    ]);
    expectValidV1Stream(out);
  });

  it('a failed call inside a subagent: the acp result and the end both carry the error', () => {
    const out = encoder()(
      turnStart(),
      call('c', 'task1'),
      text('x', 'A', 'task1'),
      end('e2', 'inner', { agentId: 'A', parentId: 'task1', error: 'boom' }),
    );
    expect(out.slice(4)).toMatchObject([
      { role: 'agent', content: { type: 'acp', data: { callId: 'inner', isError: true, output: 'boom' } } },
      { role: 'session', content: { subagent: 'task1', ev: { t: 'tool-call-end', isError: true } } },
    ]);
  });
});

describe('time and options', () => {
  it('time strictly increases across records, even when messages share or go back in time', () => {
    const out = encoder()(
      { id: 'a', time: 50, role: 'agent', type: 'turn-start', turn: 't1' },
      { id: 'b', time: 50, role: 'agent', type: 'text', turn: 't1', text: 'x', agentId: 'A' },
      { id: 'c', time: 40, role: 'agent', type: 'turn-end', turn: 't1', status: 'completed' },
      { id: 'd', time: 100, role: 'user', type: 'text', text: 'next' },
    );
    expect(out.map((r) => (r as { content: { time: number } }).content.time)).toEqual([
      50, 51, 52, 53, 54, 100,
    ]);
  });

  it('meta replaces the default {sentFrom: "cli"}', () => {
    const [record] = createV1Encoder({ meta: { sentFrom: 'happy-session' } }).encode(turnStart());
    expect(record?.meta).toEqual({ sentFrom: 'happy-session' });
  });
});
