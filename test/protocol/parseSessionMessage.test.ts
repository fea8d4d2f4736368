import { describe, expect, it } from 'vitest';
import { isCuid } from 'happy-session/protocol';
import { newId, parseSessionMessage } from 'happy-session';
import vectors from '../vectors/happy-crypto.json' with { type: 'json' };

const base = { id: 'm1', time: 1710000000000 };

const valid = [
  { ...base, role: 'agent', type: 'turn-start', turn: 't' },
  { ...base, role: 'agent', type: 'turn-end', turn: 't', status: 'failed' },
  { ...base, role: 'agent', type: 'text', turn: 't', text: 'hi', thinking: true },
  { ...base, role: 'user', type: 'text', text: 'hi' },
  {
    ...base,
    role: 'agent',
    type: 'tool-call-start',
    turn: 't',
    callId: 'c',
    toolName: 'bash',
    title: 'Run',
    description: '',
    args: {},
    agentTitle: 'Sub',
  },
  { ...base, role: 'agent', type: 'tool-call-end', turn: 't', callId: 'c', error: 'boom' },
  {
    ...base,
    role: 'agent',
    type: 'permission-request',
    turn: 't',
    callId: 'c',
    toolName: 'bash',
    title: 'Run',
    options: [{ id: 'a', label: 'Allow', kind: 'allow-once' }],
  },
  { ...base, role: 'user', type: 'permission-response', callId: 'c', optionId: 'a' },
  { ...base, role: 'user', type: 'photo', ref: 'media/1', thumbhash: 'x', width: 2, height: 3 },
  {
    ...base,
    role: 'agent',
    type: 'video',
    turn: 't',
    ref: 'media/2',
    thumbhash: 'x',
    width: 2,
    height: 3,
    durationMs: 1000,
    mimeType: 'video/mp4',
    size: 10,
  },
  {
    ...base,
    role: 'agent',
    type: 'file',
    turn: 't',
    ref: 'r',
    name: 'a.pdf',
    size: 1,
    mimeType: 'application/pdf',
  },
  { ...base, role: 'agent', type: 'service', text: 'compacted' },
  { ...base, role: 'agent', type: 'service', turn: 't', parentId: 'c', agentId: 'a', text: 'x' },
];

describe('parseSessionMessage', () => {
  it.each(valid.map((m) => [m.type + '/' + m.role, m]))('accepts a valid %s message', (_name, message) => {
    const result = parseSessionMessage(message);
    expect(result.ok).toBe(true);
  });

  it.each([
    [
      'permission-response from the agent',
      { ...base, role: 'agent', type: 'permission-response', turn: 't', callId: 'c', optionId: 'a' },
    ],
    ['turn-start from the user', { ...base, role: 'user', type: 'turn-start', turn: 't' }],
    [
      'tool-call-start from the user',
      {
        ...base,
        role: 'user',
        type: 'tool-call-start',
        callId: 'c',
        toolName: 'x',
        title: '',
        description: '',
        args: {},
      },
    ],
    ['agent text without turn', { ...base, role: 'agent', type: 'text', text: 'hi' }],
    [
      'agent photo without turn',
      { ...base, role: 'agent', type: 'photo', ref: 'r', thumbhash: '', width: 1, height: 1 },
    ],
    ['user text with thinking', { ...base, role: 'user', type: 'text', text: 'hi', thinking: false }],
    [
      'an unknown option kind',
      {
        ...base,
        role: 'agent',
        type: 'permission-request',
        turn: 't',
        callId: 'c',
        toolName: 'x',
        title: '',
        options: [{ id: 'a', label: 'A', kind: 'allow' }],
      },
    ],
    [
      'no options',
      {
        ...base,
        role: 'agent',
        type: 'permission-request',
        turn: 't',
        callId: 'c',
        toolName: 'x',
        title: '',
        options: [],
      },
    ],
    ['an unknown turn-end status', { ...base, role: 'agent', type: 'turn-end', turn: 't', status: 'done' }],
    ['a string time', { ...base, time: '1', role: 'agent', type: 'turn-start', turn: 't' }],
    ['a missing id', { time: 1, role: 'agent', type: 'turn-start', turn: 't' }],
    [
      'args that are not an object',
      {
        ...base,
        role: 'agent',
        type: 'tool-call-start',
        turn: 't',
        callId: 'c',
        toolName: 'x',
        title: '',
        description: '',
        args: [1],
      },
    ],
  ])('refuses %s as protocol.invalid_message', (_name, message) => {
    const result = parseSessionMessage(message);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('protocol.invalid_message');
      expect(result.error.issues.length).toBeGreaterThan(0);
    }
  });

  it('reads a plan, and refuses one from the user or with an empty entry', () => {
    const entries = [{ content: 'Read the code', status: 'in_progress', priority: 'high' }];
    expect(parseSessionMessage({ ...base, role: 'agent', type: 'plan', turn: 't', entries })).toEqual({
      ok: true,
      value: { ...base, role: 'agent', type: 'plan', turn: 't', entries },
    });
    expect(parseSessionMessage({ ...base, role: 'user', type: 'plan', entries })).toMatchObject({
      ok: false,
      error: { code: 'protocol.invalid_message' },
    });
    const empty = [{ content: '', status: 'pending' }];
    expect(
      parseSessionMessage({ ...base, role: 'agent', type: 'plan', turn: 't', entries: empty }),
    ).toMatchObject({
      ok: false,
      error: { code: 'protocol.invalid_message', issues: [{ path: ['entries', 0, 'content'] }] },
    });
  });

  it('reports an unknown type as protocol.unknown_type', () => {
    const result = parseSessionMessage({ ...base, role: 'agent', type: 'todo-list', turn: 't' });
    expect(result).toMatchObject({ ok: false, error: { code: 'protocol.unknown_type', type: 'todo-list' } });
  });

  it.each([null, 1, 'x', [], undefined])('reports %j as protocol.not_an_object', (value) => {
    expect(parseSessionMessage(value)).toMatchObject({
      ok: false,
      error: { code: 'protocol.not_an_object' },
    });
  });

  it('drops fields it does not know, keeping the message', () => {
    const result = parseSessionMessage({ ...base, role: 'agent', type: 'turn-start', turn: 't', future: 1 });
    expect(result).toEqual({ ok: true, value: { ...base, role: 'agent', type: 'turn-start', turn: 't' } });
  });
});

describe('cuid2 ids', () => {
  it.each(Object.entries(vectors.cuid))('isCuid agrees with the vector for %s', (label, expected) => {
    const input = label.split(' ').at(-1)!;
    expect(isCuid(input)).toBe(expected);
  });

  it('newId makes ids of the cuid2 shape', () => {
    for (let i = 0; i < 100; i++) expect(isCuid(newId())).toBe(true);
  });

  it('newId makes 24-character ids, none repeated in 50,000', () => {
    const ids = new Set<string>();
    for (let i = 0; i < 50_000; i++) {
      const id = newId();
      expect(id).toHaveLength(24);
      ids.add(id);
    }
    expect(ids.size).toBe(50_000);
  });

  it('newId spreads its first letter and its other characters over the whole alphabet', () => {
    const first = new Set<string>();
    const rest = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const id = newId();
      first.add(id[0]!);
      for (const c of id.slice(1)) rest.add(c);
    }
    expect(first.size).toBe(26);
    expect(rest.size).toBe(36);
  });
});
