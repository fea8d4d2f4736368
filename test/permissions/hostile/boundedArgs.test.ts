import { describe, expect, it } from 'vitest';
import { SdkError } from 'happy-session';
import { MAX_RECORD_BYTES } from 'happy-session/internal';
import { frozenArgs, MAX_ARGS_DEPTH } from '../../../packages/sdk/src/stream/frozenArgs.js';
import { memorySession } from '../../helpers/memorySession.js';

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
