import { describe, expect, it } from 'vitest';
import { generateDataKey } from 'happy-session/crypto';
import type { RecordKey } from 'happy-session/crypto';
import { SdkError, SessionWriter, MemoryTransport } from 'happy-session';
import type { SessionMessage, Transport } from 'happy-session';
import { FlakyTransport } from '../../helpers/flakyTransport.js';
import { storedRecords } from './helpers.js';

// The writer's `encode` hook: each v2 message becomes 0..n records of another format.

/** Writes `text` as that many copies of itself (the text says how many), everything else as one. */
function fanOut(message: SessionMessage): unknown[] {
  if (message.type !== 'text') return [{ of: message.type }];
  const n = Number(message.text);
  return Array.from({ length: n }, (_, i) => ({ of: message.id, part: i }));
}

function setup(transport: Transport = new MemoryTransport(), encode = fanOut) {
  const key: RecordKey = { variant: 'dataKey', key: generateDataKey() };
  const writer = new SessionWriter({ transport, key, encode, outbox: { retryDelayMs: 1 } });
  const seen: SessionMessage[] = [];
  writer.messages$.subscribe((m) => seen.push(m));
  return { writer, key, seen };
}

describe('SessionWriter encode hook', () => {
  it('stores each message as its records, in order; messages$ still emits the v2 messages', async () => {
    const transport = new MemoryTransport();
    const { writer, key, seen } = setup(transport);
    const turn = writer.turn({ id: 'turnone' });
    const three = turn.text('3');
    const none = turn.text('0');
    turn.end();
    await writer.flush();

    expect(seen.map((m) => m.type)).toEqual(['turn-start', 'text', 'text', 'turn-end']);
    const stored = await storedRecords(transport, key);
    const threeId = seen[1]!.id;
    expect(stored.map((s) => s.record)).toEqual([
      { of: 'turn-start' },
      { of: threeId, part: 0 },
      { of: threeId, part: 1 },
      { of: threeId, part: 2 },
      { of: 'turn-end' },
    ]);
    // The first record keeps the message id as localId (the session spots its echo by it).
    expect(stored.slice(1, 4).map((s) => s.localId)).toEqual([threeId, `${threeId}:1`, `${threeId}:2`]);
    expect(await three).toEqual({ messageId: threeId, seq: 4 });
    // No records: it settles with the seq of the last record queued before it.
    expect(await none).toEqual({ messageId: seen[2]!.id, seq: 4 });
  });

  it('a message without records settles with the seq of the record before it, or 0 when there is none', async () => {
    const { writer } = setup();
    const delivery = writer.turn().text('0');
    await expect(delivery).resolves.toMatchObject({ seq: 1 });
    const { writer: fresh } = setup(new MemoryTransport(), () => []);
    await expect(fresh.service('nothing')).resolves.toMatchObject({ seq: 0 });
  });

  it('a message without records settles only once the records before it are stored', async () => {
    const transport = new MemoryTransport();
    const flaky = new FlakyTransport(transport);
    const { writer } = setup(flaky);
    flaky.failuresBefore = 2;
    const turn = writer.turn();
    turn.text('2');
    await turn.text('0');
    expect(transport.records).toHaveLength(3);
  });

  it('retries never duplicate a record of a multi-record message', async () => {
    const transport = new MemoryTransport();
    const flaky = new FlakyTransport(transport);
    const { writer, key } = setup(flaky);
    flaky.failuresAfter = 2;
    writer.turn().text('5');
    await writer.flush();
    const stored = await storedRecords(transport, key);
    expect(stored.map((s) => (s.record as { part?: number }).part)).toEqual([undefined, 0, 1, 2, 3, 4]);
  });

  it('an encoder that throws refuses the message: stream.encode_failed, nothing emitted or stored', async () => {
    const transport = new MemoryTransport();
    const { writer, seen } = setup(transport, (message) => {
      if (message.type === 'service') throw new Error('cannot encode service');
      return [{ of: message.type }];
    });
    let error: unknown;
    try {
      writer.service('status');
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe('stream.encode_failed');
    expect((error as SdkError).cause).toEqual(new Error('cannot encode service'));
    writer.turn();
    await writer.flush();
    expect(seen.map((m) => m.type)).toEqual(['turn-start']);
    expect(transport.records).toHaveLength(1);
  });
});
