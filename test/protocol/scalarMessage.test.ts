import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseSessionMessage } from 'happy-session';
import { isScalarMessage } from '../../packages/sdk/src/protocol/scalarMessage.js';

/** A field value of any JSON-ish kind the schema could meet, `undefined` and odd numbers included. */
const anyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.constantFrom(
    '',
    'x',
    'completed',
    'failed',
    'cancelled',
    'agent',
    'user',
    'text',
    'turn-start',
    'permission-response',
    'rpc',
    'stream',
    'local',
  ),
  fc.integer({ min: -3, max: 3 }),
  fc.constantFrom(0.5, -0, Number.NaN, Infinity, 2 ** 53, Number.MAX_SAFE_INTEGER, 1_796_000_000_000),
  fc.boolean(),
  fc.constant(null),
  fc.constant(undefined),
  fc.constant({}),
  fc.constant([]),
);

const fieldNames = [
  'id',
  'time',
  'role',
  'type',
  'turn',
  'parentId',
  'agentId',
  'text',
  'thinking',
  'status',
  'callId',
  'error',
  'seal',
  'args',
  'title',
  'toolName',
  'description',
  'optionId',
  'via',
  'requestId',
  'updatedInput',
] as const;

const id = fc.oneof(fc.constantFrom('m1', 'c1', 'x'), fc.string({ minLength: 1, maxLength: 6 }));

/** The base fields every message may carry (which of them must be there is each type's to say). */
const baseFields = {
  id,
  time: fc.oneof(fc.nat(), fc.constant(1_796_000_000_000)),
  turn: id,
  parentId: id,
  agentId: id,
};

/** Valid messages of every all-scalar type, optional fields in or out. */
const validScalar: fc.Arbitrary<Record<string, unknown>> = fc
  .record(
    {
      ...baseFields,
      body: fc.oneof(
        fc.constant({ type: 'turn-start' }),
        fc.record({
          type: fc.constant('turn-end'),
          status: fc.constantFrom('completed', 'failed', 'cancelled'),
        }),
        fc.record(
          { type: fc.constant('text'), text: fc.string({ maxLength: 8 }), thinking: fc.boolean() },
          { requiredKeys: ['type', 'text'] },
        ),
        fc.record(
          { type: fc.constant('tool-call-end'), callId: id, error: fc.string({ maxLength: 4 }) },
          { requiredKeys: ['type', 'callId'] },
        ),
        fc.record(
          {
            type: fc.constant('service'),
            text: fc.string({ maxLength: 8 }),
            seal: fc.string({ maxLength: 4 }),
          },
          { requiredKeys: ['type', 'text'] },
        ),
      ),
    },
    { requiredKeys: ['id', 'time', 'turn', 'body'] },
  )
  .map(({ body, ...base }) => ({ ...base, role: 'agent', ...body }) as Record<string, unknown>);

/** Valid user `permission-response`s without `updatedInput` (the gate's record of an answer), optional fields in or out. */
const validResponse: fc.Arbitrary<Record<string, unknown>> = fc
  .record(
    {
      ...baseFields,
      callId: id,
      optionId: id,
      via: fc.constantFrom('stream', 'rpc', 'local'),
      requestId: id,
      seal: fc.string({ maxLength: 4 }),
    },
    { requiredKeys: ['id', 'time', 'callId', 'optionId'] },
  )
  .map((fields) => ({ ...fields, role: 'user', type: 'permission-response' }) as Record<string, unknown>);

/** One change to a message: a field set to any value (a new one, or one there), or a field removed. */
const mutation = fc.oneof(
  fc.record({ set: fc.constantFrom(...fieldNames), to: anyValue }),
  fc.record({ remove: fc.constantFrom(...fieldNames) }),
  fc.record({
    set: fc.constant('type'),
    to: fc.constantFrom('tool-call-start', 'photo', 'nope', 'constructor'),
  }),
);

/** Valid messages, and messages a change or two away from one. */
const nearMessage: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(fc.oneof(validScalar, validResponse), fc.array(mutation, { maxLength: 2 }))
  .map(([valid, changes]) => {
    const message = { ...valid };
    for (const change of changes) {
      if ('remove' in change) delete message[change.remove];
      else message[change.set] = change.to;
    }
    return message;
  });

describe('isScalarMessage', () => {
  it('is true only for a message the schema accepts and returns unchanged', () => {
    let accepted = 0;
    fc.assert(
      fc.property(nearMessage, (message) => {
        if (!isScalarMessage(message)) return;
        accepted++;
        const parsed = parseSessionMessage(message);
        expect(parsed.ok).toBe(true);
        if (parsed.ok) expect(parsed.value).toStrictEqual(message);
      }),
      { numRuns: 20_000 },
    );
    // The generator reaches the accepted side often enough for the property to mean something.
    expect(accepted).toBeGreaterThan(2_000);
  });

  it("is true for what the builders append most: texts, turn starts and ends, call ends, the gate's record of an answer", () => {
    const base = { id: 'm1', time: 1_796_000_000_000, role: 'agent', turn: 't1' } as const;
    const messages = [
      { ...base, type: 'turn-start' },
      { ...base, type: 'turn-end', status: 'completed' },
      { ...base, type: 'text', text: 'hello' },
      { ...base, type: 'text', text: '', thinking: true, parentId: 'c1', agentId: 'a1' },
      { ...base, type: 'tool-call-end', callId: 'c1', error: 'cancelled' },
      { id: 'm2', time: 0, role: 'agent', type: 'service', text: 'note' },
      {
        id: 'm3',
        time: 1,
        role: 'user',
        type: 'permission-response',
        callId: 'c1',
        optionId: 'allow-once',
        via: 'rpc',
        requestId: 'r1',
        seal: 's',
      },
    ];
    for (const message of messages) {
      expect(isScalarMessage(message)).toBe(true);
      expect(parseSessionMessage(message)).toStrictEqual({ ok: true, value: message });
    }
  });

  it('leaves to the schema what it does not check field by field', () => {
    const base = { id: 'm1', time: 1, role: 'agent', turn: 't1' } as const;
    const others: object[] = [
      { ...base, type: 'text', text: 'x', extra: 1 }, // an unknown field, which the schema drops
      { ...base, type: 'text', text: 'x', thinking: undefined },
      { ...base, type: 'text', text: 1 },
      { ...base, type: 'text' },
      { ...base, type: 'turn-end', status: 'done' },
      { ...base, type: 'tool-call-end', callId: '' },
      { ...base, type: 'turn-start', time: 1.5 },
      { ...base, type: 'turn-start', turn: '' },
      { ...base, role: 'user', type: 'text', text: 'x' },
      { ...base, type: 'tool-call-start', callId: 'c', toolName: 'x', title: '', description: '', args: {} },
      Object.assign(Object.create({ inherited: 1 }) as object, { ...base, type: 'turn-start' }),
      // A response with edited arguments (an object) goes through the schema.
      {
        id: 'm1',
        time: 1,
        role: 'user',
        type: 'permission-response',
        callId: 'c',
        optionId: 'o',
        updatedInput: {},
      },
      { id: 'm1', time: 1, role: 'agent', type: 'permission-response', callId: 'c', optionId: 'o' },
      {
        id: 'm1',
        time: 1,
        role: 'user',
        type: 'permission-response',
        callId: 'c',
        optionId: 'o',
        via: 'app',
      },
      { id: 'm1', time: 1, role: 'user', type: 'permission-response', callId: 'c', optionId: '' },
      { id: 'm1', time: 1, role: 'user', type: 'permission-response', callId: 'c' },
    ];
    for (const message of others) expect(isScalarMessage(message)).toBe(false);
  });
});
