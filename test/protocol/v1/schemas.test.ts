import { describe, expect, it } from 'vitest';
import { parseV1SessionRecord, V1RecordSchema } from 'happy-session/v1';
import { V1AcpToolResultRecordSchema, V1EnvelopeSchema } from 'happy-session/internal';

// The examples of docs/wire.md §6.3, and the rules the app enforces on them.

const ok = (value: unknown) => V1EnvelopeSchema.safeParse(value).success;
const base = { id: 'ca1', time: 1000, role: 'agent', turn: 'ct1' };

describe('v1 envelope', () => {
  it('accepts the nine documented event kinds', () => {
    const events = [
      { t: 'turn-start' },
      { t: 'text', text: 'Looking…' },
      { t: 'text', text: 'reasoning…', thinking: true },
      { t: 'service', text: '**Service:** reconnecting' },
      {
        t: 'tool-call-start',
        call: 'toolu_01',
        name: 'Bash',
        title: 'Run ls',
        description: 'Run ls',
        args: { command: 'ls' },
      },
      { t: 'tool-call-end', call: 'toolu_01' },
      {
        t: 'file',
        ref: 'sessions/S/attachments/u.enc',
        name: 'shot.png',
        size: 2048,
        mimeType: 'image/png',
        image: { width: 640, height: 480, thumbhash: 'IPgNzaR4d3iAiHiHd4iIeI+F5/iI' },
      },
      { t: 'turn-end', status: 'completed' },
    ];
    for (const ev of events) expect(ok({ ...base, ev }), JSON.stringify(ev)).toBe(true);
    const subagent = 'c0123456789abcdef0123456';
    expect(ok({ ...base, subagent, ev: { t: 'start', title: 'Explorer' } })).toBe(true);
    expect(ok({ ...base, subagent, ev: { t: 'stop' } })).toBe(true);
  });

  it('refuses an agent envelope without turn, except a usage-only service with empty text', () => {
    const { turn: _turn, ...noTurn } = base;
    expect(ok({ ...noTurn, ev: { t: 'text', text: 'x' } })).toBe(false);
    expect(ok({ ...noTurn, ev: { t: 'service', text: 'x' } })).toBe(false);
    expect(ok({ ...noTurn, ev: { t: 'service', text: '' } })).toBe(false);
    const usage = { input_tokens: 10, output_tokens: 2, context_window: 200000 };
    expect(ok({ ...noTurn, usage, ev: { t: 'service', text: '' } })).toBe(true);
    expect(ok({ ...noTurn, usage, ev: { t: 'service', text: 'not empty' } })).toBe(false);
  });

  it('takes user text without turn', () => {
    expect(ok({ id: 'cu1', time: 999, role: 'user', ev: { t: 'text', text: 'Find TODOs' } })).toBe(true);
  });

  it('refuses service, start and stop from the user', () => {
    for (const ev of [{ t: 'service', text: 'x' }, { t: 'start' }, { t: 'stop' }]) {
      expect(ok({ id: 'u', time: 1, role: 'user', ev })).toBe(false);
    }
  });

  it('takes as subagent only what the app takes: 2 to 32 lower-case letters and digits', () => {
    for (const subagent of [
      'agent_sub1',
      'Abc123',
      'a',
      '8d3f1a0e-7b1c-4e2a-9c1d-1234567890ab',
      'x'.repeat(33),
    ]) {
      expect(ok({ ...base, subagent, ev: { t: 'stop' } }), subagent).toBe(false);
    }
    for (const subagent of ['1abc', 'ab', 'c0123456789abcdef0123456']) {
      expect(ok({ ...base, subagent, ev: { t: 'stop' } }), subagent).toBe(true);
    }
  });

  it('refuses an unknown event kind and a turn-end without a known status', () => {
    expect(ok({ ...base, ev: { t: 'permission-request' } })).toBe(false);
    expect(ok({ ...base, ev: { t: 'turn-end', status: 'done' } })).toBe(false);
  });

  it('requires the thumbhash when a file has image geometry', () => {
    const ev = { t: 'file', ref: 'r', name: 'n', size: 1, image: { width: 1, height: 1 } };
    expect(ok({ ...base, ev })).toBe(false);
  });
});

describe('v1 records', () => {
  const envelope = { ...base, ev: { t: 'turn-start' } };

  it('reads the direct form (the CLI’s) and the wrapped form (the app’s)', () => {
    const direct = parseV1SessionRecord({ role: 'session', content: envelope, meta: { sentFrom: 'cli' } });
    const wrapped = parseV1SessionRecord({ role: 'session', content: { type: 'session', data: envelope } });
    expect(direct).toEqual({ ok: true, value: { envelope, form: 'direct', meta: { sentFrom: 'cli' } } });
    expect(wrapped).toEqual({ ok: true, value: { envelope, form: 'wrapped', meta: undefined } });
  });

  it('reads the app’s wrapped user image record, whose id is a uuid', () => {
    const record = {
      role: 'session',
      content: {
        type: 'session',
        data: {
          id: '3b241101-e2bb-4255-8caf-4136c566a962',
          time: 1739347200000,
          role: 'user',
          ev: {
            t: 'file',
            ref: 'sessions/S/attachments/x.enc',
            name: 'photo.png',
            size: 123456,
            image: { width: 800, height: 600, thumbhash: 'abc' },
          },
        },
      },
    };
    expect(parseV1SessionRecord(record).ok).toBe(true);
  });

  it('reports a non-session record and an invalid envelope as typed failures', () => {
    expect(parseV1SessionRecord({ role: 'user', content: { type: 'text', text: 'hi' } })).toMatchObject({
      ok: false,
      error: { code: 'protocol.v1_not_session' },
    });
    const { turn: _turn, ...noTurn } = envelope;
    const failed = parseV1SessionRecord({ role: 'session', content: noTurn });
    expect(failed).toMatchObject({ ok: false, error: { code: 'protocol.v1_invalid' } });
    expect(!failed.ok && failed.error.issues.map((i) => i.path)).toContainEqual(['content', 'turn']);
  });

  it('accepts the acp tool-result only with one of the four providers the app knows', () => {
    const record = (provider: string) => ({
      role: 'agent',
      content: {
        type: 'acp',
        provider,
        data: { type: 'tool-result', callId: 'c', output: 'boom', id: 'r1', isError: true },
      },
    });
    for (const p of ['claude', 'codex', 'gemini', 'opencode']) {
      expect(V1AcpToolResultRecordSchema.safeParse(record(p)).success).toBe(true);
    }
    expect(V1RecordSchema.safeParse(record('happy-session')).success).toBe(false);
  });

  it('accepts the legacy event message record (status line)', () => {
    const record = {
      role: 'agent',
      content: { type: 'event', id: 'e1', data: { type: 'message', message: 'hi' } },
    };
    expect(V1RecordSchema.safeParse(record).success).toBe(true);
  });
});
