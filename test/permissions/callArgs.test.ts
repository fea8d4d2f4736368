import { describe, expect, it } from 'vitest';
import { canonicalArgs } from '../../packages/sdk/src/policy/callArgs.js';

/** `[1, <hole>, 2]`. */
function holed(): unknown[] {
  const a: unknown[] = [1];
  a[2] = 2;
  return a;
}

describe('canonicalArgs: the text an exact-call rule holds', () => {
  it('is the same for the same JSON value, whatever the key order', () => {
    expect(canonicalArgs({ b: [1, { d: 1, c: 2 }], a: 'x' })).toBe('{"a":"x","b":[1,{"c":2,"d":1}]}');
    expect(canonicalArgs({ a: 'x', b: [1, { c: 2, d: 1 }] })).toBe(
      canonicalArgs({ b: [1, { d: 1, c: 2 }], a: 'x' }),
    );
  });

  it('writes every character outside printable ASCII as \\uXXXX', () => {
    expect(canonicalArgs({ s: 'a\u00a0b\u200b\u202e\n\u0000é' })).toBe(
      '{"s":"a\\u00a0b\\u200b\\u202e\\n\\u0000\\u00e9"}',
    );
  });

  it.each([
    ['an array', [1]],
    ['a string', 'x'],
    ['null', null],
    ['NaN', { n: Number.NaN }],
    ['Infinity', { n: Number.POSITIVE_INFINITY }],
    ['undefined', { u: undefined }],
    ['a hole', { a: holed() }],
    ['a Date', { d: new Date(0) }],
    ['a Map', { m: new Map() }],
    ['a function', { f: () => 1 }],
    ['a BigInt', { b: 1n }],
  ])('has no text for %s', (_name, value) => {
    expect(canonicalArgs(value)).toBeUndefined();
  });

  it('has no text for a cycle or nesting past 64 levels, but does for a shared value', () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    expect(canonicalArgs(cycle)).toBeUndefined();
    let deep: Record<string, unknown> = {};
    for (let i = 0; i < 70; i++) deep = { d: deep };
    expect(canonicalArgs(deep)).toBeUndefined();
    const shared = { x: 1 };
    expect(canonicalArgs({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
  });

  it('stops at maxLength', () => {
    expect(canonicalArgs({ a: 'xxxx' }, 12)).toBe('{"a":"xxxx"}');
    expect(canonicalArgs({ a: 'xxxx' }, 11)).toBeUndefined();
    expect(canonicalArgs({ a: 'x'.repeat(1_000_000) }, 100)).toBeUndefined();
    expect(
      canonicalArgs(Object.fromEntries(Array.from({ length: 1000 }, (_, i) => [`k${i}`, 0])), 100),
    ).toBeUndefined();
  });
});
