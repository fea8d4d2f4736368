import { describe, expect, it } from 'vitest';
import type { SessionMessage } from 'happy-session';
import { previewSummary } from 'happy-session/internal';
import { createV1Encoder } from 'happy-session/v1';
import type { V1EncoderOptions, V1Record } from 'happy-session/v1';
import { expectValidV1Stream } from './helpers.js';

// One test per row of the table in createV1Encoder's TSDoc and docs/v1-format.md, then the labels.

const META = { sentFrom: 'cli' };

function encoder(options: V1EncoderOptions = {}) {
  const e = createV1Encoder(options);
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

  it('tool-call-start → ev tool-call-start: call, name, title and args as given; description is the label, here the title', () => {
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
          description: 'Run ls',
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

  it("tool-call-end with error → only the acp tool-result, the error as the call's output, the message's id", () => {
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
            id: 'e2',
            isError: true,
            turn: 't1',
            time: 2,
          },
        },
        meta: META,
      },
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

  it("a previewed permission-request → ev service with the request's description (the preview's summary), bounded", () => {
    const files = Array.from({ length: 100 }, (_, i) => ({
      path: `src/generated/file-${i}.ts`,
      change: 'created' as const,
      size: 1_000 + i,
      diff: `@@ line 1 @@\n+export const value${i} = ${i};`,
    }));
    const preview = {
      files,
      filesOmitted: 20,
      network: ['example.com:443'],
      processesLeft: 0,
      exitCode: 0,
      outputTail: 'x'.repeat(2_000),
      applicable: false,
      reason: 'it tried the network (example.com:443): on allow it runs again, for real',
    };
    const description = previewSummary(preview);
    expect(description.length).toBeLessThanOrEqual(2_000);
    // The note that allow runs it again for real comes before the files, so a cut never loses it.
    expect(description.split('\n').slice(0, 2)).toEqual([
      'Preview (ran on a copy of the workspace, no network): exit 0',
      'Outside the workspace: it tried the network (example.com:443): on allow it runs again, for real.',
    ]);
    expect(description).toContain('  created src/generated/file-0.ts (1000 B)');
    const out = encoder()({
      id: 'p1',
      time: 1,
      role: 'agent',
      type: 'permission-request',
      turn: 't1',
      callId: 'c',
      toolName: 'Bash',
      title: 'Run',
      description,
      options: [{ id: 'ok', label: 'Allow', kind: 'allow-once' }],
      preview,
    });
    expect(out).toEqual([
      session({ id: 'p1', time: 1, role: 'agent', turn: 't1', ev: { t: 'service', text: description } }),
    ]);
    expectValidV1Stream(out);
  });

  const photo = (id: string, ref: string, role: 'agent' | 'user' = 'agent'): SessionMessage =>
    ({
      id,
      time: 2,
      role,
      type: 'photo',
      ...(role === 'agent' ? { turn: 't1' } : {}),
      ref,
      thumbhash: 'IPgNzaR4d3iAiHiHd4iIeI+F5/iI',
      width: 640,
      height: 480,
    }) as SessionMessage;
  const image = { width: 640, height: 480, thumbhash: 'IPgNzaR4d3iAiHiHd4iIeI+F5/iI' };

  it('photo → ev file captioned with the file name attach() knew, with its size and type', () => {
    const [record] = createV1Encoder().encode(photo('ph1', 'sessions/S/attachments/k9v2.enc'), {
      attachment: { name: 'chart.png', size: 2048, mimeType: 'image/png' },
    });
    expect(record).toEqual(
      session({
        id: 'ph1',
        time: 2,
        role: 'agent',
        turn: 't1',
        ev: {
          t: 'file',
          ref: 'sessions/S/attachments/k9v2.enc',
          name: 'chart.png',
          size: 2048,
          mimeType: 'image/png',
          image,
        },
      }),
    );
  });

  it('photos without a name are called photo-1, photo-2, … in stream order, never after their ref', () => {
    const out = encoder()(
      turnStart(),
      photo('a', 'sessions/S/attachments/u1.enc'),
      photo('b', 'media/u2', 'user'),
    );
    expect(out.slice(1).map((r) => r.role === 'session' && r.content.ev)).toEqual([
      { t: 'file', ref: 'sessions/S/attachments/u1.enc', name: 'photo-1', size: 0, image },
      { t: 'file', ref: 'media/u2', name: 'photo-2', size: 0, image },
    ]);
  });

  const video: SessionMessage = {
    id: 'v1',
    time: 2,
    role: 'agent',
    type: 'video',
    turn: 't1',
    ref: 'media/up_vid789',
    thumbhash: '3OcRJYB4d3h/iIeHeEh3eIhw+j2w',
    width: 1920,
    height: 1080,
    durationMs: 45_400,
    mimeType: 'video/mp4',
    size: 104857600,
  };
  const videoMedia = {
    type: 'video',
    ref: 'media/up_vid789',
    thumbhash: '3OcRJYB4d3h/iIeHeEh3eIhw+j2w',
    width: 1920,
    height: 1080,
    durationMs: 45_400,
    mimeType: 'video/mp4',
    size: 104857600,
  };

  it('video with an uploaded poster → ev file of the poster, named for the video with its duration; the video rides in media', () => {
    const out = createV1Encoder().encode(video, {
      attachment: {
        name: 'demo.mp4',
        size: 104857600,
        mimeType: 'video/mp4',
        poster: { ref: 'media/up_poster', size: 4000, mimeType: 'image/png' },
      },
    });
    expect(out.map((r) => r.role === 'session' && r.content.ev)).toEqual([
      {
        t: 'file',
        ref: 'media/up_poster',
        name: '▶ demo.mp4 · 0:45',
        size: 4000,
        mimeType: 'image/png',
        image: { width: 1920, height: 1080, thumbhash: '3OcRJYB4d3h/iIeHeEh3eIhw+j2w' },
        media: videoMedia,
      },
    ]);
  });

  it('video without a poster → a text line, never an image box over the video', () => {
    const out = createV1Encoder().encode(video);
    expect(out.map((r) => r.role === 'session' && r.content.ev)).toEqual([
      { t: 'text', text: '🎬 video-1 · 0:45 · 1920×1080 · video/mp4 · 105 MB', media: videoMedia },
    ]);
  });

  it('file → a text line with name, type and size, for either role; the file rides in media', () => {
    const file = {
      ref: 'media/up_def456',
      name: 'q3_report_v2.pdf',
      size: 2048,
      mimeType: 'application/pdf',
    };
    const out = encoder()(
      turnStart(),
      { id: 'f1', time: 2, role: 'agent', type: 'file', turn: 't1', ...file },
      { id: 'f2', time: 3, role: 'user', type: 'file', ...file },
    );
    const ev = {
      t: 'text',
      text: '📎 q3\\_report\\_v2.pdf · application/pdf · 2.05 kB',
      media: { type: 'file', ...file },
    };
    expect(out.slice(1)).toEqual([
      session({ id: 'f1', time: 2, role: 'agent', turn: 't1', ev }),
      session({ id: 'f2', time: 3, role: 'user', ev }),
    ]);
  });

  it("anything left on the agent's machine → a text line with its path: the app cannot download it", () => {
    const out = createV1Encoder().encode(photo('p', 'machine-file:///home/me/shot.png'), {
      attachment: { name: 'shot.png', size: 5000, mimeType: 'image/png' },
    });
    expect(out.map((r) => r.role === 'session' && r.content.ev)).toEqual([
      {
        t: 'text',
        text: "🖼️ shot.png · 640×480 · image/png · 5 kB · on the agent's machine: /home/me/shot.png",
        media: { type: 'photo', ref: 'machine-file:///home/me/shot.png', ...image },
      },
    ]);
  });
});

describe('labels', () => {
  const call = (callId: string, title: string, extra: Record<string, unknown> = {}): SessionMessage =>
    ({
      id: `s-${callId}`,
      time: 2,
      role: 'agent',
      type: 'tool-call-start',
      turn: 't1',
      callId,
      toolName: 'step',
      title,
      description: '',
      args: {},
      ...extra,
    }) as SessionMessage;
  const labels = (records: V1Record[]) =>
    records.flatMap((r) =>
      r.role === 'session' && r.content.ev.t === 'tool-call-start' ? [r.content.ev.description] : [],
    );

  it('a nested call is written at the top of its turn, its label carrying the path of its parents', () => {
    const out = encoder()(
      turnStart(),
      call('d', 'deploy'),
      call('b', 'build', { parentId: 'd' }),
      call('c', 'compile', { parentId: 'b' }),
    );
    expect(labels(out)).toEqual(['deploy', 'deploy › build', 'deploy › build › compile']);
    expect(out.every((r) => r.role !== 'session' || r.content.subagent === undefined)).toBe(true);
    expectValidV1Stream(out, { complete: false });
  });

  it("a subagent's calls carry the subagent's title; no subagent id, start or stop is written", () => {
    const out = encoder()(
      turnStart(),
      call('task1', 'Explore', { toolName: 'task', agentTitle: 'Auth research' }),
      {
        id: 'x',
        time: 3,
        role: 'agent',
        type: 'text',
        turn: 't1',
        text: 'hi',
        parentId: 'task1',
        agentId: 'A',
      },
      call('g', 'Searching for login', { parentId: 'task1', agentId: 'A', agentTitle: 'Inner' }),
      call('h', 'Deeper', { parentId: 'g', agentId: 'B' }),
    );
    expect(labels(out)).toEqual([
      'Explore',
      'Auth research › Searching for login',
      'Auth research › Inner › Deeper',
    ]);
    expect(out.map((r) => r.role === 'session' && r.content.ev.t)).toEqual([
      'turn-start',
      'tool-call-start',
      'text',
      'tool-call-start',
      'tool-call-start',
    ]);
    expectValidV1Stream(out, { complete: false });
  });

  it('an empty title falls back to the tool name; a parent of an ended turn is not part of the path', () => {
    const out = encoder()(
      turnStart(),
      call('a', '', { toolName: 'run_build' }),
      { id: 'te', time: 4, role: 'agent', type: 'turn-end', turn: 't1', status: 'completed' },
      { id: 'ts', time: 5, role: 'agent', type: 'turn-start', turn: 't2' },
      call('b', 'later', { turn: 't2', parentId: 'a' }),
    );
    expect(labels(out)).toEqual(['run_build', 'later']);
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
    expect(out.map((r) => (r as { content: { time: number } }).content.time)).toEqual([50, 51, 52, 100]);
  });

  it('meta replaces the default {sentFrom: "cli"}', () => {
    const [record] = createV1Encoder({ meta: { sentFrom: 'happy-session' } }).encode(turnStart());
    expect(record?.meta).toEqual({ sentFrom: 'happy-session' });
  });
});
