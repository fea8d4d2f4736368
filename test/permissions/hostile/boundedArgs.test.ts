import { describe, expect, it } from 'vitest';
import { SdkError } from 'happy-session';
import { MAX_RECORD_BYTES } from 'happy-session/internal';
import { frozenArgs, MAX_ARGS_DEPTH } from '../../../packages/sdk/src/stream/frozenArgs.js';
import { MAX_ARGS_TEXT } from '../../../packages/sdk/src/stream/argsText.js';
import { startCall } from '../../../packages/sdk/src/integrations/toolCalls.js';
import { PermissionGate } from 'happy-session/permissions';
import { memorySession } from '../../helpers/memorySession.js';
import { until } from '../../helpers/until.js';

/**
 * Issue 35, class 6: a tool call's arguments are copied and frozen before anything is shown
 * (docs/permissions-policy.md, "What runs is what was shown"), and that copy counts what it would
 * write: arguments larger than a record holds are refused with `stream.too_large` from the count,
 * nesting deeper than MAX_ARGS_DEPTH with `stream.invalid_message`, and nothing is appended. How
 * long the refusal takes is measured by `bench/boundedArgs.bench.ts`, never here.
 */

function thrown(fn: () => unknown): SdkError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SdkError) return error;
    throw error;
  }
  throw new Error('expected an SdkError');
}

function wide(keys: number, value: (i: number) => unknown = (i) => i): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < keys; i++) out[`k${i}`] = value(i);
  return out;
}

function nested(depth: number): unknown {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
}

/** Where the keys of one object are counted, and every later key is never read. */
function trap(keys: number): { object: Record<string, unknown>; read: () => number } {
  const object: Record<string, unknown> = {};
  let read = 0;
  for (let i = 0; i < keys; i++)
    Object.defineProperty(object, `key${i}`, {
      enumerable: true,
      get: () => {
        read++;
        return 'x'.repeat(64);
      },
    });
  return { object, read: () => read };
}

const TOO_LARGE: Array<[string, () => Record<string, unknown>]> = [
  ['1,000,000 keys of numbers', () => wide(1_000_000)],
  ['1,000,000 keys whose values are all undefined', () => wide(1_000_000, () => undefined)],
  ['1,000 objects of 1,000 keys', () => wide(1_000, () => wide(1_000))],
  ['an array of 1,000,000 zeros', () => ({ list: new Array<number>(1_000_000).fill(0) })],
  ['an array of 10,000,000 holes (its length alone is too large)', () => ({ list: new Array(10_000_000) })],
  ['a 2,000,000-character string', () => ({ text: 'x'.repeat(2_000_000) })],
  ['a key of 2,000,000 characters', () => ({ ['k'.repeat(2_000_000)]: 1 })],
  [
    '2,000 strings of 1,000 characters in an array',
    () => ({ list: new Array(2_000).fill('y'.repeat(1_000)) }),
  ],
  ['a toJSON that answers 2,000,000 characters', () => ({ v: { toJSON: () => 'z'.repeat(2_000_000) } })],
];

describe('class 6: arguments larger than a record are refused from the count, before the walk ends', () => {
  it.each(TOO_LARGE)('%s: stream.too_large, nothing appended', async (_name, make) => {
    const { writer, transport } = memorySession();
    const turn = writer.turn();
    const error = thrown(() => turn.toolCall({ toolName: 'Bash', args: make() }));
    expect(error.code).toBe('stream.too_large');
    expect(error.details).toMatchObject({ limit: MAX_RECORD_BYTES, path: 'args' });
    turn.end();
    await writer.flush();
    expect(transport.records).toHaveLength(2); // turn-start, turn-end: nothing of the call
  });

  it('the walk stops reading once the count passes the limit: most getters of a large object are never called', () => {
    // 20,000 values of 64 characters: about 1.3 MB of JSON; the count passes 1 MiB near the 15,000th.
    const { object, read } = trap(20_000);
    const { writer } = memorySession();
    expect(thrown(() => writer.turn().toolCall({ toolName: 'X', args: object })).code).toBe(
      'stream.too_large',
    );
    expect(read()).toBeGreaterThan(10_000);
    expect(read()).toBeLessThan(20_000);
  });

  it('an edited input (updatedInput) is copied by the same count', () => {
    expect(thrown(() => frozenArgs(wide(1_000_000), 'updatedInput')).code).toBe('stream.too_large');
  });
});

describe('class 6: nesting is bounded by depth', () => {
  it.each([
    ['1,000,000 nested arrays', 1_000_000],
    ['10,000 nested objects and arrays', 10_000],
    [`one level more than MAX_ARGS_DEPTH`, MAX_ARGS_DEPTH],
  ])('%s: stream.invalid_message naming the depth', (_name, depth) => {
    const { writer } = memorySession();
    const error = thrown(() => writer.turn().toolCall({ toolName: 'X', args: { v: nested(depth) } }));
    expect(error.code).toBe('stream.invalid_message');
    expect(error.message).toContain(`nested deeper than ${MAX_ARGS_DEPTH} levels`);
  });
});

describe('positive controls: arguments that fit are copied, shown and stored', () => {
  it.each([
    ['50,000 keys', () => wide(50_000)],
    ['an array of 200,000 zeros', () => ({ list: new Array<number>(200_000).fill(0) })],
    ['a 900,000-character string', () => ({ text: 'x'.repeat(900_000) })],
    ['nesting MAX_ARGS_DEPTH deep (the args object and 127 more)', () => ({ v: nested(MAX_ARGS_DEPTH - 1) })],
    ['a key named __proto__ stays a key', () => JSON.parse('{"__proto__":{"polluted":1},"command":"ls"}')],
  ])('%s', async (_name, make) => {
    const args = make() as Record<string, unknown>;
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    const call = turn.toolCall({ toolName: 'X', args });
    expect(JSON.stringify(call.args)).toBe(JSON.stringify(args));
    expect(Object.isFrozen(call.args)).toBe(true);
    call.end();
    turn.end();
    await writer.flush();
    const events = await reader.readAll();
    expect(events.filter((e) => e.kind === 'message')).toHaveLength(4);
  });
});

/** `n` distinct keys of two characters each, as compact JSON text: about 7 characters a key. */
function wideText(n: number): string {
  const parts: string[] = [];
  for (let i = 0; i < n; i++)
    parts.push(`"${String.fromCharCode(0x4e00 + (i >> 10), 0x4e00 + (i & 1023))}":0`);
  return `{${parts.join(',')}}`;
}

const TEXT_TOO_LARGE: Array<[string, () => string]> = [
  ['1,000,000 keys as JSON text under the length cap', () => wideText(1_000_000)],
  ['text longer than MAX_ARGS_TEXT (refused from its length)', () => ' '.repeat(MAX_ARGS_TEXT + 1)],
  [
    'a string of 1,100,000 \\u escapes (each counts one character)',
    () => `{"t":"${'\\u0041'.repeat(1_100_000)}"}`,
  ],
  ['an array of 600,000 numbers', () => `{"l":[${new Array(600_000).fill('12345').join(',')}]}`],
  [
    '1,100,000 duplicate keys (the text, not the parsed object, is judged)',
    () => `{${new Array(1_100_000).fill('"a":1').join(',')}}`,
  ],
];

describe('class 6: arguments that arrive as JSON text are refused by a scan, before any object is built', () => {
  it.each(TEXT_TOO_LARGE)('%s: stream.too_large, nothing appended', async (_name, make) => {
    const text = make();
    const { writer, transport } = memorySession();
    const turn = writer.turn();
    const error = thrown(() => startCall(turn, 'Bash', text, undefined));
    expect(error.code).toBe('stream.too_large');
    expect(error.details).toMatchObject({ limit: MAX_RECORD_BYTES, path: 'args' });
    turn.end();
    await writer.flush();
    expect(transport.records).toHaveLength(2);
  });

  it.each([
    ['5,000,000 opening brackets', () => '['.repeat(5_000_000)],
    [
      'one level more than MAX_ARGS_DEPTH',
      () => `{"v":${'['.repeat(MAX_ARGS_DEPTH)}${']'.repeat(MAX_ARGS_DEPTH)}}`,
    ],
  ])('%s: stream.invalid_message naming the depth, nothing appended', async (_name, make) => {
    const { writer, transport } = memorySession();
    const turn = writer.turn();
    const error = thrown(() => startCall(turn, 'Bash', make(), undefined));
    expect(error.code).toBe('stream.invalid_message');
    expect(error.message).toContain(`nested deeper than ${MAX_ARGS_DEPTH} levels`);
    turn.end();
    await writer.flush();
    expect(transport.records).toHaveLength(2);
  });

  it.each([
    ['compact JSON', '{"command":"ls -la"}', { command: 'ls -la' }],
    ['pretty-printed JSON', '{\n  "command": "ls",\n  "timeout": 1.50\n}', { command: 'ls', timeout: 1.5 }],
    [
      'brackets and escapes inside a string are text',
      '{"command":"echo \\"[[[{\\u0041\\""}',
      { command: 'echo "[[[{A"' },
    ],
    ['text that is not JSON is the input itself', 'ls -la', { input: 'ls -la' }],
    [
      'nesting MAX_ARGS_DEPTH deep',
      `${'['.repeat(MAX_ARGS_DEPTH - 1)}${']'.repeat(MAX_ARGS_DEPTH - 1)}`.replace(/^/, '{"v":').concat('}'),
      undefined,
    ],
    ['900,000 characters of one string', `{"text":"${'x'.repeat(900_000)}"}`, { text: 'x'.repeat(900_000) }],
  ])('positive control, %s: shown as the call and stored', async (_name, text, args) => {
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    const call = startCall(turn, 'Bash', text, undefined);
    expect(call.args).toEqual(args ?? JSON.parse(text));
    call.end();
    turn.end();
    await writer.flush();
    const events = await reader.readAll();
    expect(events.filter((e) => e.kind === 'message')).toHaveLength(4);
  });
});

describe("class 6: the person's edit and the permission RPC body are read by the same bounded walk", () => {
  /** A gate with one Bash call waiting; `answer` and `rpc` reach it as the local program and the app do. */
  async function waiting() {
    const { writer } = memorySession();
    const gate = await PermissionGate.create({ writer });
    const turn = writer.turn();
    const call = turn.toolCall({ toolName: 'Bash', args: { command: 'echo hi' } });
    const ran: unknown[] = [];
    const running = call.run((args) => void ran.push(args.command));
    await until(() => gate.pendingCallIds.includes(call.callId));
    return { gate, call, ran, running, turn };
  }

  const EDITS: Array<[string, () => Record<string, unknown>, string]> = [
    ['1,000,000 keys', () => wide(1_000_000), 'larger than a record holds'],
    ['a 2,000,000-character value', () => ({ command: 'x'.repeat(2_000_000) }), 'larger than a record holds'],
    ['1,000,000 nested arrays', () => ({ command: nested(1_000_000) }), 'plain JSON'],
  ];

  it.each(EDITS)(
    'an edit of %s is refused, typed, on every channel; the request stays open and a small edit then runs (control)',
    async (_name, make, says) => {
      const { gate, call, ran, running, turn } = await waiting();
      const edit = make();
      const local = gate.answer({ callId: call.callId, optionId: 'allow-once', updatedInput: edit });
      expect(local).toMatchObject({ status: 'error', code: 'permissions.invalid_updated_input' });
      expect((local as { message: string }).message).toContain(says);
      for (const body of [
        { callId: call.callId, optionId: 'allow-once', updatedInput: edit },
        { id: call.callId, approved: true, updatedInput: edit },
      ])
        expect(gate.handleRpc(body)).toMatchObject({ status: 'error', code: 'permissions.invalid_payload' });
      expect(gate.pendingCallIds).toEqual([call.callId]);
      expect(
        gate.answer({ callId: call.callId, optionId: 'allow-once', updatedInput: { command: 'echo bye' } }),
      ).toMatchObject({ status: 'applied' });
      expect(await running).toMatchObject({ status: 'done' });
      expect(ran).toEqual(['echo bye']);
      turn.end();
    },
  );

  it('the walk stops once the count passes the limit: most getters of a large edit or body are never called', async () => {
    const { gate, call, turn } = await waiting();
    const edit = trap(20_000);
    expect(
      gate.answer({ callId: call.callId, optionId: 'allow-once', updatedInput: edit.object }),
    ).toMatchObject({
      code: 'permissions.invalid_updated_input',
    });
    expect(edit.read()).toBeLessThan(20_000);
    const body = trap(20_000);
    expect(
      gate.handleRpc({ callId: call.callId, optionId: 'allow-once', updatedInput: body.object }),
    ).toMatchObject({
      code: 'permissions.invalid_payload',
    });
    expect(body.read()).toBeLessThan(20_000);
    expect(gate.pendingCallIds).toEqual([call.callId]);
    turn.end();
  });
});
