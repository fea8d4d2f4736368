import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { appendAcksOf, isNewMessageBody } from '../../packages/sdk/src/transport/recordShapes.js';
import { newMessageRecord } from '../../packages/sdk/src/transport/sessionMessagesHttp.js';
import { AppendResponseSchema } from '../../packages/sdk/src/wire/messages.js';
import { NewMessageBodySchema } from '../../packages/sdk/src/wire/updates.js';

/** A field value of any JSON-ish kind a server could send, `undefined` and odd numbers included. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.constantFrom('', 'x', 'new-message', 'encrypted', 's1'),
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(0.5, -0, Number.NaN, Infinity, -Infinity, 2 ** 53, Number.MAX_SAFE_INTEGER, 1.5e12),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant({}),
  fc.constant([]),
  fc.constant({ t: 'encrypted', c: 'AAAA' }),
);

/** A stored row as the server sends it, `content` left out for a write's answer. */
const row = (withContent: boolean): fc.Arbitrary<Record<string, unknown>> =>
  fc
    .record(
      {
        id: fc.string({ maxLength: 6 }),
        seq: fc.oneof(fc.integer({ min: 1, max: 1000 }), fc.constant(Number.MAX_SAFE_INTEGER)),
        localId: fc.oneof(fc.string({ maxLength: 6 }), fc.constant(null)),
        content: fc.record({ t: fc.constant('encrypted'), c: fc.base64String({ maxLength: 12 }) }),
        createdAt: fc.oneof(fc.nat(), fc.double({ noNaN: true, noDefaultInfinity: true })),
        updatedAt: fc.oneof(fc.nat(), fc.constant(1.7e12)),
        extra: anyValue,
      },
      { requiredKeys: ['id', 'seq', 'createdAt', 'updatedAt', ...(withContent ? ['content' as const] : [])] },
    )
    .map((r) => {
      const out: Record<string, unknown> = { ...r };
      if (!withContent) delete out.content;
      // A new-message row always has its localId (null or a string); a write's answer may leave it out.
      if (withContent && !('localId' in out)) out.localId = null;
      return out;
    });

const rowFields = ['id', 'seq', 'localId', 'content', 'createdAt', 'updatedAt'] as const;

/** One change to an object: a field set to any value, or removed. */
const change = (fields: readonly string[]) =>
  fc.oneof(
    fc.record({ set: fc.constantFrom(...fields), to: anyValue }),
    fc.record({ remove: fc.constantFrom(...fields) }),
  );

function applied(
  value: Record<string, unknown>,
  changes: ReadonlyArray<{ set?: string; to?: unknown; remove?: string }>,
) {
  const out = { ...value };
  for (const c of changes) {
    if (c.remove !== undefined) delete out[c.remove];
    else out[c.set!] = c.to;
  }
  return out;
}

/** `new-message` bodies, valid and a change or two away (in the body, its row or its content). */
const nearBody: fc.Arbitrary<unknown> = fc
  .record({
    sid: fc.constantFrom('s1', 's2', ''),
    message: row(true),
    bodyChanges: fc.array(change(['t', 'sid', 'message']), { maxLength: 1 }),
    rowChanges: fc.array(change(rowFields), { maxLength: 2 }),
    contentChanges: fc.array(change(['t', 'c']), { maxLength: 1 }),
    replaced: fc.oneof({ arbitrary: fc.constant(undefined), weight: 9 }, { arbitrary: anyValue, weight: 1 }),
  })
  .map(({ sid, message, bodyChanges, rowChanges, contentChanges, replaced }) => {
    const content = applied(message.content as Record<string, unknown>, contentChanges);
    const changedRow = applied({ ...message, content }, rowChanges);
    const body = applied({ t: 'new-message', sid, message: changedRow }, bodyChanges);
    // Now and then not an object at all.
    return replaced === undefined ? body : replaced;
  });

/** Write answers, valid and with a change or two in a row or in the answer. */
const nearAnswer: fc.Arbitrary<unknown> = fc
  .record({
    rows: fc.array(row(false), { maxLength: 5 }),
    rowChanges: fc.array(fc.tuple(fc.nat(4), change(rowFields)), { maxLength: 2 }),
    answerChanges: fc.array(change(['messages']), { maxLength: 1 }),
    replaced: fc.oneof({ arbitrary: fc.constant(undefined), weight: 9 }, { arbitrary: anyValue, weight: 1 }),
  })
  .map(({ rows, rowChanges, answerChanges, replaced }) => {
    const changed = rows.map((r) => ({ ...r }));
    for (const [i, c] of rowChanges) if (i < changed.length) changed[i] = applied(changed[i]!, [c]);
    const answer = applied({ messages: changed }, answerChanges);
    return replaced === undefined ? answer : replaced;
  });

describe('isNewMessageBody', () => {
  it('is true only for a body the schema accepts, which reads the same as the schema returns it', () => {
    let accepted = 0;
    fc.assert(
      fc.property(nearBody, (body) => {
        if (!isNewMessageBody(body)) return;
        accepted++;
        const parsed = NewMessageBodySchema.safeParse(body);
        expect(parsed.success).toBe(true);
        if (!parsed.success) return;
        const m = body.message;
        expect({
          t: body.t,
          sid: body.sid,
          message: {
            id: m.id,
            seq: m.seq,
            localId: m.localId,
            content: { t: m.content.t, c: m.content.c },
            createdAt: m.createdAt,
            updatedAt: m.updatedAt,
          },
        }).toStrictEqual(parsed.data);
      }),
      { numRuns: 20_000 },
    );
    // The generator reaches the accepted side often enough for the property to mean something.
    expect(accepted).toBeGreaterThan(1_000);
  });

  it('is true for the echo a Happy server sends of each stored record, and newMessageRecord reads it', () => {
    const body = {
      t: 'new-message',
      sid: 's1',
      message: {
        id: 'row1',
        seq: 7,
        localId: 'm1',
        content: { t: 'encrypted', c: 'AAAA' },
        createdAt: 1_796_000_000_000,
        updatedAt: 1_796_000_000_000,
      },
    };
    expect(isNewMessageBody(body)).toBe(true);
    expect(newMessageRecord({ body }, 's1')).toStrictEqual({
      seq: 7,
      localId: 'm1',
      content: 'AAAA',
      id: 'row1',
      createdAt: 1_796_000_000_000,
    });
    expect(newMessageRecord({ body }, 's2')).toBeUndefined();
  });

  it('newMessageRecord gives what the schema alone would, for every body', () => {
    fc.assert(
      fc.property(nearBody, (body) => {
        const parsed = NewMessageBodySchema.safeParse(body);
        const expected =
          parsed.success && parsed.data.sid === 's1'
            ? {
                seq: parsed.data.message.seq,
                localId: parsed.data.message.localId,
                content: parsed.data.message.content.c,
                id: parsed.data.message.id,
                createdAt: parsed.data.message.createdAt,
              }
            : undefined;
        expect(newMessageRecord({ body }, 's1')).toStrictEqual(expected);
      }),
      { numRuns: 5_000 },
    );
  });
});

describe('appendAcksOf', () => {
  /** The acks as the schema's output gives them: one per row with a localId. */
  function schemaAcks(answer: unknown) {
    const parsed = AppendResponseSchema.safeParse(answer);
    if (!parsed.success) return undefined;
    return parsed.data.messages.flatMap((m) =>
      m.localId === null ? [] : [{ localId: m.localId, seq: m.seq, id: m.id }],
    );
  }

  it('gives acks only for an answer the schema accepts, the same acks as from its output', () => {
    let accepted = 0;
    fc.assert(
      fc.property(nearAnswer, (answer) => {
        const acks = appendAcksOf(answer);
        if (acks === undefined) return;
        accepted++;
        expect(acks).toStrictEqual(schemaAcks(answer));
      }),
      { numRuns: 20_000 },
    );
    expect(accepted).toBeGreaterThan(1_000);
  });

  it("reads a Happy server's answer to a write (rows with and without a localId)", () => {
    const answer = {
      messages: [
        { id: 'r1', seq: 1, localId: 'a', createdAt: 1, updatedAt: 1 },
        { id: 'r2', seq: 2, localId: null, createdAt: 2, updatedAt: 2 },
        { id: 'r3', seq: 3, createdAt: 3, updatedAt: 3 },
      ],
    };
    expect(appendAcksOf(answer)).toStrictEqual([{ localId: 'a', seq: 1, id: 'r1' }]);
    expect(appendAcksOf(answer)).toStrictEqual(schemaAcks(answer));
  });

  it('leaves to the schema an answer it does not accept as it is', () => {
    for (const answer of [
      null,
      [],
      { messages: {} },
      { messages: [{ id: 'r1', seq: 0, localId: 'a', createdAt: 1, updatedAt: 1 }] },
      { messages: [{ id: 'r1', seq: 1.5, localId: 'a', createdAt: 1, updatedAt: 1 }] },
      { messages: [{ id: 'r1', seq: 1, localId: 5, createdAt: 1, updatedAt: 1 }] },
      { messages: [{ id: 'r1', seq: 1, localId: 'a', createdAt: Number.NaN, updatedAt: 1 }] },
      { messages: [{ id: 'r1', seq: 1, localId: 'a', createdAt: 1 }] },
    ]) {
      expect(appendAcksOf(answer)).toBeUndefined();
      expect(AppendResponseSchema.safeParse(answer).success).toBe(false);
    }
  });
});
