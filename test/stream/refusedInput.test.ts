/**
 * Serialisable or refused, and one size limit (issue 13): a builder refuses, synchronously and
 * before anything is appended, a value JSON cannot carry and a message whose record would be larger
 * than MAX_RECORD_BYTES; the SDK's readers accept every record its writer stores.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SdkError, splitText } from 'happy-session';
import { MAX_RECORD_BYTES, MAX_TEXT_BYTES } from 'happy-session/internal';
import { findNonJson } from '../../packages/sdk/src/protocol/jsonValue.js';
import { memorySession } from '../helpers/memorySession.js';

function thrown(fn: () => unknown): SdkError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SdkError) return error;
    throw error;
  }
  throw new Error('expected an SdkError');
}

const cycle: Record<string, unknown> = { a: 1 };
cycle.again = { back: cycle };
const sparse: unknown[] = [1];
sparse[2] = 3;

describe('values JSON cannot carry are refused synchronously, naming the path', () => {
  it.each([
    ['a BigInt', { n: 10n }, 'args.n', 'a BigInt'],
    ['a cycle', { tree: cycle }, 'args.tree.again.back', 'a circular reference'],
    ['a function', { run: () => 1 }, 'args.run', 'a function'],
    ['a symbol', { tag: Symbol('x') }, 'args.tag', 'a symbol'],
    ['NaN', { ratio: Number.NaN }, 'args.ratio', 'NaN'],
    ['Infinity', { list: [1, Infinity] }, 'args.list[1]', 'Infinity'],
    ['undefined in an array', { list: [1, undefined] }, 'args.list[1]', 'undefined'],
    ['a hole in an array', { list: sparse }, 'args.list[1]', 'undefined'],
    ['a Map', { index: new Map([['a', 1]]) }, 'args.index', 'a Map'],
    ['a key that is not an identifier', { 'my key': 1n }, 'args["my key"]', 'a BigInt'],
  ])('%s', async (_name, args, path, found) => {
    const { writer, transport } = memorySession();
    const turn = writer.turn();
    const error = thrown(() => turn.toolCall({ toolName: 'X', args }));
    expect(error.code).toBe('stream.invalid_message');
    expect(error.details?.path).toBe(path);
    expect(error.message).toBe(`${path} is ${found}, which JSON cannot carry. (${error.hint})`);
    turn.end();
    await writer.flush();
    expect(transport.records).toHaveLength(2); // turn-start, turn-end: nothing of the call
  });

  it('what JSON writes as it is passes: Dates (toJSON), nested plain data, undefined properties, shared references', () => {
    const shared = { x: 1 };
    expect(
      findNonJson({ at: new Date(0), a: [shared, shared], b: { c: null, d: undefined } }),
    ).toBeUndefined();
  });

  it('a text, a service message and append() are checked the same way', () => {
    const { writer } = memorySession();
    const turn = writer.turn();
    expect(thrown(() => turn.text(10n as unknown as string)).code).toBe('stream.invalid_message');
    expect(
      thrown(() => writer.append({ type: 'service', role: 'agent', text: 'x', extra: 1n } as never)).details
        ?.path,
    ).toBe('extra');
  });
});

describe('one size limit for writer and readers', () => {
  it('a 2,000,000-character text is refused synchronously with stream.too_large, its size and the limit; nothing is appended', async () => {
    const { writer, transport } = memorySession();
    const turn = writer.turn();
    const error = thrown(() => turn.text('x'.repeat(2_000_000)));
    expect(error.code).toBe('stream.too_large');
    expect(error.details).toMatchObject({ limit: MAX_RECORD_BYTES, type: 'text' });
    expect(error.details?.size).toBeGreaterThan(2_000_000);
    turn.end();
    await writer.flush();
    expect(transport.records).toHaveLength(2);
  });

  it('the largest text one message holds is stored, and the reader with its defaults decrypts it', async () => {
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    const [part] = splitText('y'.repeat(MAX_TEXT_BYTES));
    expect(part).toHaveLength(MAX_TEXT_BYTES);
    await turn.text(part!);
    turn.end();
    await writer.flush();
    const events = await reader.readAll();
    expect(events.map((e) => e.kind)).toEqual(['message', 'message', 'message']);
  });

  it('the limit is the record’s, as the README says: a text of MAX_TEXT_BYTES + 10 is stored, one past the record is refused', async () => {
    const readme = readFileSync(fileURLToPath(new URL('../../README.md', import.meta.url)), 'utf8');
    expect(readme.replace(/\s+/g, ' ')).toContain(
      'one whose record would be larger than `MAX_RECORD_BYTES` (1 MiB, `stream.too_large`)',
    );
    expect(MAX_RECORD_BYTES).toBe(1024 * 1024);
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    await turn.text('x'.repeat(MAX_TEXT_BYTES + 10));
    expect(thrown(() => turn.text('x'.repeat(MAX_RECORD_BYTES))).code).toBe('stream.too_large');
    turn.end();
    await writer.flush();
    expect((await reader.readAll()).map((e) => e.kind)).toEqual(['message', 'message', 'message']);
  });

  it('a record of exactly MAX_RECORD_BYTES is stored and read back; one byte more is refused', async () => {
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    const probe = thrown(() => turn.text('z'.repeat(MAX_RECORD_BYTES)));
    const envelope = (probe.details?.size as number) - MAX_RECORD_BYTES;
    const over = thrown(() => turn.text('z'.repeat(MAX_RECORD_BYTES - envelope + 1)));
    expect(over.details).toMatchObject({ size: MAX_RECORD_BYTES + 1, limit: MAX_RECORD_BYTES });
    await turn.text('z'.repeat(MAX_RECORD_BYTES - envelope));
    turn.end();
    await writer.flush();
    const events = await reader.readAll();
    expect(events.map((e) => e.kind)).toEqual(['message', 'message', 'message']);
  });

  it('splitText parts join back to the text, each fits, and all of them are stored', async () => {
    const text = ['# Report', 'é'.repeat(400_000), '"quoted"\n'.repeat(120_000), '😀'.repeat(200_000)].join(
      '\n',
    );
    const parts = splitText(text);
    expect(parts.join('')).toBe(text);
    expect(parts.length).toBeGreaterThan(2);
    for (const p of parts)
      expect(Buffer.byteLength(JSON.stringify(p)) - 2).toBeLessThanOrEqual(MAX_TEXT_BYTES);
    const { writer, reader } = memorySession();
    const turn = writer.turn();
    for (const part of parts) turn.text(part);
    turn.end();
    await writer.flush();
    const texts = (await reader.messages()).flatMap((m) => (m.type === 'text' ? [m.text] : []));
    expect(texts.join('')).toBe(text);
  });

  it('splitText cuts after a line break when one is in the second half, never inside a surrogate pair', () => {
    expect(splitText('aaaa\nbbbbbb', { maxBytes: 8 })).toEqual(['aaaa\n', 'bbbbbb']);
    expect(splitText('😀😀😀', { maxBytes: 8 })).toEqual(['😀😀', '😀']);
    expect(splitText('')).toEqual(['']);
  });
});
