import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRelay, type Relay } from 'happy-session-relay';
import { closeSockets, connect, createSession, http, next, record, settle, signIn } from './helpers.js';

let relay: Relay;
let token: string;
let sessionId: string;
beforeEach(async () => {
  relay = await startRelay();
  token = (await signIn(relay)).token;
  sessionId = (await createSession(relay, token)).id as string;
});
afterEach(async () => {
  closeSockets();
  await relay.close();
});

const content = (n: number) => Buffer.from(`ciphertext-${n}`).toString('base64');
const write = (messages: { content: string; localId: string }[]) =>
  http(relay, token).post(`/v3/sessions/${sessionId}/messages`, { messages });
const read = (query = '') => http(relay, token).get(`/v3/sessions/${sessionId}/messages${query}`);

async function writeMany(count: number): Promise<void> {
  await write(Array.from({ length: count }, (_, i) => ({ content: content(i + 1), localId: `l${i + 1}` })));
}

describe('POST /v3/sessions/:id/messages (§5.2)', () => {
  it('stores a batch with consecutive seqs from 1 and answers rows without content', async () => {
    const result = await write([
      { content: content(1), localId: 'a' },
      { content: content(2), localId: 'b' },
      { content: content(3), localId: 'c' },
    ]);
    expect(result.status).toBe(200);
    expect(result.body.messages).toEqual(
      ['a', 'b', 'c'].map((localId, i) => ({
        id: expect.stringMatching(/^c[0-9a-z]{24}$/),
        seq: i + 1,
        localId,
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
      })),
    );
  });

  it('is idempotent by localId across calls and keeps the first of a repeated localId in a batch', async () => {
    const first = await write([
      { content: content(1), localId: 'a' },
      { content: content(2), localId: 'b' },
    ]);
    const retry = await write([
      { content: content(3), localId: 'c' },
      { content: content(99), localId: 'a' },
      { content: content(4), localId: 'c' },
    ]);
    // Existing rows come back as stored; the response is sorted by seq.
    expect(retry.body.messages.map((m: { localId: string; seq: number }) => [m.localId, m.seq])).toEqual([
      ['a', 1],
      ['c', 3],
    ]);
    expect(retry.body.messages[0].id).toBe(first.body.messages[0].id);
    const stored = await read();
    expect(stored.body.messages.map((m: { content: { c: string } }) => m.content.c)).toEqual([
      content(1),
      content(2),
      content(3),
    ]);
  });

  it('sends one new-message per new row to session and UI sockets, the writer included', async () => {
    const agent = await connect(relay, { token, clientType: 'session-scoped', sessionId });
    const ui = await connect(relay, { token, clientType: 'user-scoped' });
    const agentUpdates = record(agent, 'update');
    const uiUpdate = next(ui, 'update');
    await write([{ content: content(1), localId: 'a' }]);
    const update = await uiUpdate;
    expect(update.body).toEqual({
      t: 'new-message',
      sid: sessionId,
      message: {
        id: expect.any(String),
        seq: 1,
        content: { t: 'encrypted', c: content(1) },
        localId: 'a',
        createdAt: expect.any(Number),
        updatedAt: expect.any(Number),
      },
    });
    // A retry creates nothing and so announces nothing.
    await write([{ content: content(1), localId: 'a' }]);
    await settle(agent);
    expect(agentUpdates.map((u) => u.body)).toEqual([update.body]);
  });

  it('refuses 0 or more than 100 messages, an empty localId, and a missing body with 400', async () => {
    expect((await write([])).status).toBe(400);
    const tooMany = Array.from({ length: 101 }, (_, i) => ({ content: 'AA==', localId: `l${i}` }));
    const result = await write(tooMany);
    expect(result.status).toBe(400);
    expect(result.body).toEqual({
      error: 'Error',
      message: 'body/messages Too big: expected array to have <=100 items',
      statusCode: 400,
    });
    expect((await write([{ content: 'AA==', localId: '' }])).status).toBe(400);
    expect((await http(relay, token).post(`/v3/sessions/${sessionId}/messages`)).status).toBe(400);
    expect((await read()).body.messages).toEqual([]);
  });

  it('answers an unknown session with 404 Session not found', async () => {
    const result = await http(relay, token).post('/v3/sessions/cunknown/messages', {
      messages: [{ content: 'AA==', localId: 'x' }],
    });
    expect(result).toMatchObject({ status: 404, body: { error: 'Session not found' } });
  });
});

describe('GET /v3/sessions/:id/messages (§5.2)', () => {
  it('reads forward from after_seq in pages with hasMore', async () => {
    await writeMany(5);
    const page1 = await read('?after_seq=0&limit=2');
    expect(page1.body.messages.map((m: { seq: number }) => m.seq)).toEqual([1, 2]);
    expect(page1.body.hasMore).toBe(true);
    const page3 = await read('?after_seq=4&limit=2');
    expect(page3.body).toEqual({
      messages: [
        {
          id: expect.any(String),
          seq: 5,
          content: { t: 'encrypted', c: content(5) },
          localId: 'l5',
          createdAt: expect.any(Number),
          updatedAt: expect.any(Number),
        },
      ],
      hasMore: false,
    });
    expect((await read()).body.messages).toHaveLength(5);
  });

  it('reads backward from before_seq in descending order', async () => {
    await writeMany(5);
    const page = await read('?before_seq=2147483647&limit=3');
    expect(page.body.messages.map((m: { seq: number }) => m.seq)).toEqual([5, 4, 3]);
    expect(page.body.hasMore).toBe(true);
    const rest = await read('?before_seq=3&limit=3');
    expect(rest.body.messages.map((m: { seq: number }) => m.seq)).toEqual([2, 1]);
    expect(rest.body.hasMore).toBe(false);
  });

  it('answers both cursors, bad numbers and out-of-range limits with 400', async () => {
    const both = await read('?after_seq=1&before_seq=3');
    expect(both.status).toBe(400);
    expect(both.body).toEqual({
      error: 'Error',
      message: 'querystring/ after_seq and before_seq are mutually exclusive',
      statusCode: 400,
    });
    expect((await read('?before_seq=0')).status).toBe(400);
    expect((await read('?after_seq=-1')).status).toBe(400);
    expect((await read('?limit=501')).status).toBe(400);
    expect((await read('?after_seq=abc')).status).toBe(400);
  });
});

describe('legacy paths (§5.3)', () => {
  it('GET /v1/sessions/:id/messages lists the newest messages first', async () => {
    await writeMany(3);
    const result = await http(relay, token).get(`/v1/sessions/${sessionId}/messages`);
    expect(result.body.messages.map((m: { seq: number }) => m.seq)).toEqual([3, 2, 1]);
    expect(result.body.messages[0].content).toEqual({ t: 'encrypted', c: content(3) });
  });

  it('socket message stores the record, skips the sender, and burns a seq on a duplicate localId', async () => {
    const agent = await connect(relay, { token, clientType: 'session-scoped', sessionId });
    const ui = await connect(relay, { token, clientType: 'user-scoped' });
    const agentUpdates = record(agent, 'update');
    const uiUpdate = next(ui, 'update');

    agent.emit('message', { sid: sessionId, message: content(1), localId: 'legacy-1' });
    expect((await uiUpdate).body.message).toMatchObject({ seq: 1, localId: 'legacy-1' });
    agent.emit('message', { sid: sessionId, message: content(2), localId: 'legacy-1' });
    agent.emit('message', { sid: sessionId, message: content(3) });
    await settle(agent);

    const stored = (await read()).body.messages;
    expect(stored.map((m: { seq: number; localId: string | null }) => [m.seq, m.localId])).toEqual([
      [1, 'legacy-1'],
      [3, null],
    ]);
    expect(agentUpdates).toEqual([]);
  });
});
