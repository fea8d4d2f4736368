import { describe, expect, it } from 'vitest';
import { encryptRecordBase64 } from 'happy-session/internal';
import type { SessionMessage, ReaderEvent } from 'happy-session';
import { createV1Encoder } from 'happy-session/v1';
import {
  writeSimpleToolCall,
  writeSubagent,
  writeToolCallWithPermission,
} from '../helpers/exampleStreams.js';
import { memorySession } from '../helpers/memorySession.js';

// The SDK's reader reads a session written in format 'v1' back into v2 messages: what v1 keeps
// comes back as it was written, and each message names what v1 could not keep
// (docs/v1-format.md, "Reading v1 back").

/** A v1 session whose writer also records what it appended in v2. */
function v1Session() {
  const encoder = createV1Encoder();
  const session = memorySession({ encode: (message, context) => encoder.encode(message, context) });
  const written: SessionMessage[] = [];
  session.writer.messages$.subscribe((m) => written.push(m));
  return { ...session, written };
}

/** What v1 keeps of a v2 message: all but the nesting, the subagent's title and (for a call) the description. */
function keptByV1(message: SessionMessage, label: string | undefined): Record<string, unknown> {
  const { parentId: _parentId, agentId: _agentId, ...kept } = message as Record<string, unknown>;
  if (message.type === 'tool-call-start') {
    delete kept.agentTitle;
    kept.description = label;
  }
  return kept;
}

function messagesOf(events: readonly ReaderEvent[]) {
  return events.flatMap((e) => (e.kind === 'message' ? [e] : []));
}

describe('reading a v1 session back as v2', () => {
  it('gives back every message but the permission records, as written, minus what v1 cannot carry', async () => {
    const { writer, reader, written } = v1Session();
    await writeSimpleToolCall(writer);
    await writeToolCallWithPermission(writer);
    await writeSubagent(writer);
    const turn = writer.turn();
    await turn
      .step('deploy', (deploy) =>
        deploy.step('compile', () => {
          throw new Error('exit 2');
        }),
      )
      .catch(() => undefined);
    writer.service('between turns');
    turn.end('failed');
    await writer.flush();

    const events = await reader.readAll();
    expect(events.every((e) => e.kind === 'message')).toBe(true);
    const read = messagesOf(events);
    const labels = new Map(
      read.flatMap((e) =>
        e.message.type === 'tool-call-start' ? [[e.message.callId, e.message.description]] : [],
      ),
    );
    const expected = written
      .filter((m) => m.type !== 'permission-request' && m.type !== 'permission-response')
      .map((m) => keptByV1(m, m.type === 'tool-call-start' ? labels.get(m.callId) : undefined));
    // A status line has no time of its own in v1: the server's stands in, and the reader says so.
    const withoutLostTime = (m: unknown, lost: readonly string[]) => {
      const { time, ...rest } = m as Record<string, unknown>;
      return lost.includes('time') ? rest : { time, ...rest };
    };
    expect(read.map((e) => withoutLostTime(e.message, e.lost))).toEqual(
      expected.map((m, i) => withoutLostTime(m, read[i]?.lost ?? [])),
    );
    expect([...labels.values()]).toEqual([
      'Searching for TODO',
      'Run `rm -rf node_modules`',
      'Exploring codebase',
      'Auth research › Searching for login',
      'deploy',
      'deploy › compile',
    ]);
  });

  it('says what each record could not keep, and in which format it was', async () => {
    const { writer, reader } = v1Session();
    writer.append({ role: 'user', type: 'text', text: 'hi' });
    const turn = writer.turn();
    turn.toolCall({ toolName: 'grep', title: 'Find' }).end({ error: 'no match' });
    turn.text('done');
    writer.service('status line');
    turn.end();
    await writer.flush();
    const read = messagesOf(await reader.readAll()).map((e) => [e.message.type, e.format, e.lost]);
    expect(read).toEqual([
      ['text', 'v1', []],
      ['turn-start', 'v1', []],
      ['tool-call-start', 'v1', ['parentId', 'agentId', 'agentTitle', 'description']],
      ['tool-call-end', 'legacy', ['parentId', 'agentId']],
      ['text', 'v1', ['parentId', 'agentId']],
      ['service', 'legacy', ['time']],
      ['turn-end', 'v1', []],
    ]);
  });

  it('gives back photos, videos and files from their v1 records, with the video behind its poster', async () => {
    const { writer, reader, written } = v1Session();
    const turn = writer.turn();
    const photo = { ref: 'sessions/S/attachments/p.enc', thumbhash: 'h1', width: 4, height: 3 };
    const video = {
      ref: 'sessions/S/attachments/v.enc',
      thumbhash: 'h2',
      width: 16,
      height: 9,
      durationMs: 3000,
      mimeType: 'video/mp4',
      size: 900,
    };
    const file = {
      ref: 'sessions/S/attachments/f.enc',
      name: 'report.pdf',
      size: 77,
      mimeType: 'application/pdf',
    };
    const agent = { role: 'agent', turn: turn.id } as const;
    writer.append(
      { ...agent, type: 'photo', ...photo },
      { context: { attachment: { name: 'chart.png', size: 10, mimeType: 'image/png' } } },
    );
    writer.append(
      { ...agent, type: 'video', ...video },
      {
        context: {
          attachment: {
            name: 'clip.mp4',
            size: 900,
            mimeType: 'video/mp4',
            poster: { ref: 'sessions/S/attachments/poster.enc', size: 50, mimeType: 'image/png' },
          },
        },
      },
    );
    writer.append({ ...agent, type: 'video', ...video });
    writer.append({ ...agent, type: 'file', ...file });
    turn.end();
    await writer.flush();
    const read = messagesOf(await reader.readAll()).map((e) => e.message);
    expect(read).toEqual(written.map((m) => keptByV1(m, undefined)));
  });

  it('reads the Happy CLI’s subagent records: markers are skipped, the subagent id becomes agentId, an end with isError is an error', async () => {
    const { transport, key, reader } = memorySession();
    const envelope = (id: string, ev: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
      role: 'session',
      content: { id, time: 10 + Number(id.slice(1)), role: 'agent', turn: 't1', ...extra, ev },
      meta: { sentFrom: 'cli' },
    });
    const records = [
      envelope('r1', { t: 'start', title: 'Explorer' }, { subagent: 'sub1' }),
      envelope(
        'r2',
        { t: 'tool-call-start', call: 'c1', name: 'Bash', title: 'ls', description: 'List', args: {} },
        { subagent: 'sub1' },
      ),
      envelope(
        'r3',
        { t: 'tool-call-end', call: 'c1', output: 'denied', isError: true },
        { subagent: 'sub1' },
      ),
      envelope('r4', { t: 'stop' }, { subagent: 'sub1' }),
    ];
    await transport.append(
      await Promise.all(
        records.map(async (r, i) => ({ localId: `l${i}`, content: await encryptRecordBase64(r, key) })),
      ),
    );
    const events = await reader.readAll();
    expect(events.map((e) => e.kind)).toEqual(['skipped', 'message', 'message', 'skipped']);
    expect(events[0]).toMatchObject({ format: 'v1', reason: expect.stringContaining('start marker') });
    expect(messagesOf(events).map((e) => [e.message, e.lost])).toEqual([
      [
        {
          id: 'r2',
          time: 12,
          role: 'agent',
          type: 'tool-call-start',
          turn: 't1',
          agentId: 'sub1',
          callId: 'c1',
          toolName: 'Bash',
          title: 'ls',
          description: 'List',
          args: {},
        },
        ['parentId', 'agentTitle', 'description'],
      ],
      [
        {
          id: 'r3',
          time: 13,
          role: 'agent',
          type: 'tool-call-end',
          turn: 't1',
          agentId: 'sub1',
          callId: 'c1',
          error: 'denied',
        },
        ['parentId'],
      ],
    ]);
  });

  it("reads today's app's user text as a v2 user text, keeps a legacy record it does not know an error, and skips an acp result without turn", async () => {
    const { transport, key, reader } = memorySession();
    const records = [
      { role: 'user', content: { type: 'text', text: 'Fix the login bug' }, meta: { sentFrom: 'ios' } },
      { role: 'agent', content: { type: 'output', data: { type: 'summary', summary: 's' } } },
      {
        role: 'agent',
        content: {
          type: 'acp',
          provider: 'claude',
          data: { type: 'tool-result', callId: 'c', output: 'x', id: 'a' },
        },
      },
    ];
    await transport.append(
      await Promise.all(
        records.map(async (r, i) => ({ localId: `app-${i}`, content: await encryptRecordBase64(r, key) })),
      ),
    );
    const [text, output, result] = await reader.readAll();
    expect(text).toMatchObject({
      kind: 'message',
      format: 'legacy',
      lost: [],
      message: {
        id: 'app-0',
        role: 'user',
        type: 'text',
        text: 'Fix the login bug',
        time: expect.any(Number),
      },
    });
    expect(output).toMatchObject({ kind: 'error', code: 'protocol.unknown_type' });
    expect(result).toMatchObject({
      kind: 'skipped',
      format: 'legacy',
      reason: expect.stringContaining('turn'),
    });
  });
});
