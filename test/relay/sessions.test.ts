import nacl from 'tweetnacl';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRelay, type Relay } from 'happy-session-relay';
import { b64, closeSockets, connect, createSession, http, next, record, settle, signIn } from './helpers.js';

let relay: Relay;
beforeEach(async () => {
  relay = await startRelay();
});
afterEach(async () => {
  closeSockets();
  await relay.close();
});

const SESSION_SHAPE = {
  id: expect.stringMatching(/^c[0-9a-z]{24}$/),
  seq: 0,
  metadata: expect.any(String),
  metadataVersion: 0,
  agentState: null,
  agentStateVersion: 0,
  dataEncryptionKey: expect.anything(),
  active: true,
  activeAt: expect.any(Number),
  createdAt: expect.any(Number),
  updatedAt: expect.any(Number),
};

describe('POST /v1/sessions (§4.1)', () => {
  it('creates a session at version 0, ignores agentState, and returns the data key as b64', async () => {
    const { token } = await signIn(relay);
    const dataKey = b64(Buffer.concat([Buffer.from([0]), nacl.randomBytes(104)]));
    const result = await http(relay, token).post('/v1/sessions', {
      tag: 'tag-1',
      metadata: 'bWV0YWRhdGE=',
      agentState: 'c3RhdGU=',
      dataEncryptionKey: dataKey,
    });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      session: { ...SESSION_SHAPE, metadata: 'bWV0YWRhdGE=', dataEncryptionKey: dataKey, lastMessage: null },
    });
  });

  it('returns the existing session unchanged for a known tag', async () => {
    const { token } = await signIn(relay);
    const first = await http(relay, token).post('/v1/sessions', { tag: 'same', metadata: 'Zmlyc3Q=' });
    const second = await http(relay, token).post('/v1/sessions', {
      tag: 'same',
      metadata: 'c2Vjb25k',
      dataEncryptionKey: 'AAAA',
    });
    expect(second.body.session).toEqual(first.body.session);
    expect(second.body.session.dataEncryptionKey).toBeNull();
  });

  it('tells user-scoped sockets with new-session, and not the session-scoped ones', async () => {
    const { token } = await signIn(relay);
    const existing = await createSession(relay, token);
    const ui = await connect(relay, { token, clientType: 'user-scoped' });
    const agent = await connect(relay, { token, clientType: 'session-scoped', sessionId: existing.id });
    const agentUpdates = record(agent, 'update');
    const update = next(ui, 'update');
    const session = await createSession(relay, token);
    const { id: _id, seq: _seq, metadata, ...rest } = session;
    expect(await update).toEqual({
      id: expect.stringMatching(/^[A-Za-z0-9]{12}$/),
      seq: expect.any(Number),
      createdAt: expect.any(Number),
      body: { t: 'new-session', id: session.id, seq: 0, metadata, ...withoutLastMessage(rest) },
    });
    await settle(agent);
    expect(agentUpdates).toEqual([]);
  });

  it('answers a body without tag or metadata with 400', async () => {
    const { token } = await signIn(relay);
    const result = await http(relay, token).post('/v1/sessions', { metadata: 'AA==' });
    expect(result.status).toBe(400);
    expect(result.body.message).toContain('body/tag');
  });
});

function withoutLastMessage<T extends { lastMessage?: unknown }>(value: T): Omit<T, 'lastMessage'> {
  const { lastMessage: _ignored, ...rest } = value;
  return rest;
}

describe('session lists (§4.1)', () => {
  it('GET /v1/sessions lists newest update first with lastMessage null', async () => {
    const { token } = await signIn(relay);
    const older = await createSession(relay, token);
    const newer = await createSession(relay, token);
    // A message bumps updatedAt of the older session, which moves it to the front. Let the clock
    // pass the newer session's updatedAt first, so the order cannot tie.
    while (Date.now() <= newer.updatedAt) await new Promise((resolve) => setTimeout(resolve, 1));
    await http(relay, token).post(`/v3/sessions/${older.id}/messages`, {
      messages: [{ content: 'AA==', localId: 'l1' }],
    });
    const list = await http(relay, token).get('/v1/sessions');
    expect(list.body.sessions.map((s: { id: string }) => s.id)).toEqual([older.id, newer.id]);
    expect(list.body.sessions[0]).toMatchObject({ seq: 1, lastMessage: null });
  });

  it('GET /v2/sessions/active lists active sessions only, without lastMessage', async () => {
    const { token } = await signIn(relay);
    const live = await createSession(relay, token);
    const archived = await createSession(relay, token);
    await http(relay, token).post(`/v1/sessions/${archived.id}/archive`);
    const result = await http(relay, token).get('/v2/sessions/active?limit=10');
    expect(result.body.sessions.map((s: { id: string }) => s.id)).toEqual([live.id]);
    expect(result.body.sessions[0]).not.toHaveProperty('lastMessage');
    expect((await http(relay, token).get('/v2/sessions/active?limit=0')).status).toBe(400);
  });

  it('GET /v2/sessions pages by cursor, newest id first', async () => {
    const { token } = await signIn(relay);
    const created = [];
    for (let i = 0; i < 5; i += 1) created.push((await createSession(relay, token)).id as string);
    const expected = [...created].reverse();

    const first = await http(relay, token).get('/v2/sessions?limit=2');
    expect(first.body).toMatchObject({ hasNext: true, nextCursor: `cursor_v1_${expected[1]}` });
    const second = await http(relay, token).get(`/v2/sessions?limit=2&cursor=${first.body.nextCursor}`);
    const third = await http(relay, token).get(`/v2/sessions?limit=2&cursor=${second.body.nextCursor}`);
    expect(third.body).toMatchObject({ hasNext: false, nextCursor: null });
    const ids = [first, second, third].flatMap((page) => page.body.sessions.map((s: { id: string }) => s.id));
    expect(ids).toEqual(expected);
  });

  it('GET /v2/sessions refuses a foreign cursor format and filters by changedSince', async () => {
    const { token } = await signIn(relay);
    const session = await createSession(relay, token);
    const bad = await http(relay, token).get('/v2/sessions?cursor=abc');
    expect(bad).toMatchObject({ status: 400, body: { error: 'Invalid cursor format' } });
    const later = await http(relay, token).get(`/v2/sessions?changedSince=${session.updatedAt}`);
    expect(later.body.sessions).toEqual([]);
    const earlier = await http(relay, token).get(`/v2/sessions?changedSince=${session.updatedAt - 1}`);
    expect(earlier.body.sessions.map((s: { id: string }) => s.id)).toEqual([session.id]);
  });
});

describe('archive and delete (§4.1)', () => {
  it('archive sets active false, keeps metadata, and sends activity to UIs', async () => {
    const { token } = await signIn(relay);
    const session = await createSession(relay, token);
    const ui = await connect(relay, { token, clientType: 'user-scoped' });
    const activity = next(ui, 'ephemeral');
    const result = await http(relay, token).post(`/v1/sessions/${session.id}/archive`);
    expect(result).toMatchObject({ status: 200, body: { success: true } });
    expect(await activity).toEqual({
      type: 'activity',
      id: session.id,
      active: false,
      activeAt: expect.any(Number),
      thinking: false,
    });
    const [listed] = (await http(relay, token).get('/v1/sessions')).body.sessions;
    expect(listed).toMatchObject({ id: session.id, active: false, metadata: session.metadata });
  });

  it('archive of an unknown session answers 404 Session not found', async () => {
    const { token } = await signIn(relay);
    const result = await http(relay, token).post('/v1/sessions/cnope/archive');
    expect(result).toMatchObject({ status: 404, body: { error: 'Session not found' } });
  });

  it('delete removes the session and its messages and tells UIs only', async () => {
    const { token } = await signIn(relay);
    const session = await createSession(relay, token);
    await http(relay, token).post(`/v3/sessions/${session.id}/messages`, {
      messages: [{ content: 'AA==', localId: 'l1' }],
    });
    const ui = await connect(relay, { token, clientType: 'user-scoped' });
    const agent = await connect(relay, { token, clientType: 'session-scoped', sessionId: session.id });
    const agentUpdates = record(agent, 'update');
    const update = next(ui, 'update');

    const result = await http(relay, token).delete(`/v1/sessions/${session.id}`);
    expect(result).toMatchObject({ status: 200, body: { success: true } });
    expect((await update).body).toEqual({ t: 'delete-session', sid: session.id });
    await settle(agent);
    expect(agentUpdates).toEqual([]);

    expect((await http(relay, token).get('/v1/sessions')).body.sessions).toEqual([]);
    expect(await http(relay, token).get(`/v3/sessions/${session.id}/messages`)).toMatchObject({
      status: 404,
      body: { error: 'Session not found' },
    });
    const again = await http(relay, token).delete(`/v1/sessions/${session.id}`);
    expect(again).toMatchObject({ status: 404, body: { error: 'Session not found or not owned by user' } });
  });
});
