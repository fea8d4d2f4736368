import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRelay, type Relay } from 'happy-session-relay';
import {
  closeSockets,
  connect,
  connectError,
  createSession,
  http,
  next,
  record,
  settle,
  signIn,
  uploadPath,
  type Json,
} from './helpers.js';

let relay: Relay;
let tokenA: string;
let tokenB: string;
let session: Json;
let attachmentPath: string;
const rpcCallsA: unknown[] = [];

beforeEach(async () => {
  relay = await startRelay({ rpcWaitMs: 200 });
  tokenA = (await signIn(relay)).token;
  tokenB = (await signIn(relay)).token;
  session = await createSession(relay, tokenA, { tag: 'shared-tag' });
  const a = http(relay, tokenA);
  await a.post(`/v3/sessions/${session.id}/messages`, { messages: [{ content: 'QUFBQQ==', localId: 'a1' }] });
  attachmentPath = await uploadPath(relay, tokenA, session.id);
  expect((await a.put(attachmentPath, new Uint8Array([7, 7, 7]))).status).toBe(200);
  rpcCallsA.length = 0;
});
afterEach(async () => {
  closeSockets();
  await relay.close();
});

/** Everything account A can observe about its session. */
async function snapshotA(): Promise<unknown> {
  const a = http(relay, tokenA);
  return {
    sessions: (await a.get('/v1/sessions')).body,
    messages: (await a.get(`/v3/sessions/${session.id}/messages`)).body,
    attachment: [...(await a.bytes(attachmentPath)).bytes],
  };
}

function payloadOf(token: string): Json {
  return JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8'));
}

describe('isolation between accounts over HTTP', () => {
  it('answers every route on a foreign session like a missing session and changes nothing', async () => {
    const before = await snapshotA();
    const b = http(relay, tokenB);
    const sid = session.id as string;
    const notFound = { status: 404, body: { error: 'Session not found' } };

    expect(await b.get(`/v3/sessions/${sid}/messages`)).toMatchObject(notFound);
    expect(
      await b.post(`/v3/sessions/${sid}/messages`, { messages: [{ content: 'eA==', localId: 'b1' }] }),
    ).toMatchObject(notFound);
    expect(await b.get(`/v1/sessions/${sid}/messages`)).toMatchObject(notFound);
    expect(await b.post(`/v1/sessions/${sid}/archive`)).toMatchObject(notFound);
    expect(await b.delete(`/v1/sessions/${sid}`)).toMatchObject({
      status: 404,
      body: { error: 'Session not found or not owned by user' },
    });
    expect(
      await b.post(`/v1/sessions/${sid}/attachments/request-upload`, { filename: 'x', size: 1 }),
    ).toMatchObject(notFound);
    expect(await b.put(attachmentPath, new Uint8Array([1]))).toMatchObject(notFound);
    expect(
      await b.post(`/v1/sessions/${sid}/attachments/request-download`, {
        ref: `sessions/${sid}/attachments/a.enc`,
      }),
    ).toMatchObject(notFound);
    expect(await b.get(attachmentPath)).toMatchObject(notFound);
    expect(
      await b.post(`/v1/sessions/${sid}/push-event`, { kind: 'done', title: 't', body: 'b' }),
    ).toMatchObject(notFound);

    for (const list of ['/v1/sessions', '/v2/sessions', '/v2/sessions/active']) {
      expect((await b.get(list)).body.sessions).toEqual([]);
    }
    // Tags are per account: B's session with A's tag is B's own, new session.
    const own = await b.post('/v1/sessions', { tag: 'shared-tag', metadata: 'Qg==' });
    expect(own.body.session.id).not.toBe(sid);

    expect(await snapshotA()).toEqual(before);
  });

  it('refuses forged, tampered and foreign tokens with 401 Invalid token and changes nothing', async () => {
    const before = await snapshotA();
    const other = await startRelay();
    const foreign = (await signIn(other)).token;
    await other.close();

    const [prefix, , signatureB] = tokenB.split('.');
    const claimsA = Buffer.from(JSON.stringify(payloadOf(tokenA))).toString('base64url');
    const swapped = `${prefix}.${claimsA}.${signatureB}`;
    const lastChar = tokenA.at(-1) === 'A' ? 'B' : 'A';
    const flipped = `${tokenA.slice(0, -1)}${lastChar}`;

    for (const bad of [foreign, swapped, flipped, 'not-a-token', `${tokenA}x`]) {
      const api = http(relay, bad);
      expect(await api.get('/v1/sessions')).toMatchObject({ status: 401, body: { error: 'Invalid token' } });
      expect(await api.delete(`/v1/sessions/${session.id}`)).toMatchObject({ status: 401 });
      expect(
        await api.post(`/v3/sessions/${session.id}/messages`, {
          messages: [{ content: 'eA==', localId: 'x' }],
        }),
      ).toMatchObject({ status: 401, body: { error: 'Invalid token' } });
      expect(await connectError(relay, { token: bad, clientType: 'user-scoped' })).toBe(
        'Invalid authentication token',
      );
    }
    expect(await snapshotA()).toEqual(before);
  });
});

describe('isolation between accounts over the socket', () => {
  it('ignores or refuses every session event of B on A session and tells A nothing', async () => {
    const sid = session.id as string;
    const agentA = await connect(relay, { token: tokenA, clientType: 'session-scoped', sessionId: sid });
    agentA.on('rpc-request', (request: unknown, ack: (value: string) => void) => {
      rpcCallsA.push(request);
      ack('QQ==');
    });
    const registered = next(agentA, 'rpc-registered');
    agentA.emit('rpc-register', { method: `${sid}:permission` });
    await registered;
    const uiA = await connect(relay, { token: tokenA, clientType: 'user-scoped' });
    const seenByA = [...['update', 'ephemeral'].map((event) => record(uiA, event)), record(agentA, 'update')];
    const before = await snapshotA();

    // The handshake does not check session ownership (as on the real server); events do.
    const agentB = await connect(relay, { token: tokenB, clientType: 'session-scoped', sessionId: sid });
    const acks: unknown[] = [];
    agentB.emit('update-metadata', { sid, metadata: 'Qg==', expectedVersion: 0 }, (ack: unknown) =>
      acks.push(ack),
    );
    expect(await agentB.emitWithAck('update-state', { sid, agentState: 'Qg==', expectedVersion: 0 })).toEqual(
      {
        result: 'error',
      },
    );
    agentB.emit('message', { sid, message: 'Qg==', localId: 'b-legacy' });
    agentB.emit('session-alive', { sid, time: Date.now(), thinking: true });
    agentB.emit('session-end', { sid, time: Date.now() });
    expect(
      await agentB.emitWithAck('usage-report', {
        key: 'k',
        sessionId: sid,
        tokens: { total: 1 },
        cost: { total: 1 },
      }),
    ).toEqual({ success: false, error: 'Session not found' });
    expect(await agentB.emitWithAck('rpc-call', { method: `${sid}:permission`, params: 'eA==' })).toEqual({
      ok: false,
      error: 'RPC method not available',
    });
    await settle(agentB);
    expect(acks).toEqual([]);

    // A's own traffic still flows, and B's socket for A's session id hears none of it.
    const heardByB = record(agentB, 'update');
    await http(relay, tokenA).post(`/v3/sessions/${sid}/messages`, {
      messages: [{ content: 'QUFBQg==', localId: 'a2' }],
    });
    await settle(agentB);
    expect(heardByB).toEqual([]);

    await Promise.all([settle(uiA), settle(agentA)]);
    const [updatesUi, ephemeralsUi, updatesAgent] = seenByA;
    expect(ephemeralsUi).toEqual([]);
    expect(updatesUi?.map((u: Json) => u.body.t)).toEqual(['new-message']);
    expect(updatesAgent?.map((u: Json) => u.body.t)).toEqual(['new-message']);
    expect(rpcCallsA).toEqual([]);

    const after = (await snapshotA()) as Json;
    const expected = before as Json;
    expect(after.sessions.sessions[0]).toMatchObject({
      metadata: expected.sessions.sessions[0].metadata,
      metadataVersion: 0,
      agentState: null,
      agentStateVersion: 0,
      active: true,
      activeAt: expected.sessions.sessions[0].activeAt,
    });
    expect(after.messages.messages.map((m: Json) => m.localId)).toEqual(['a1', 'a2']);
  });

  it('lets A call its own RPC from A UI while B cannot reach it', async () => {
    const sid = session.id as string;
    const agentA = await connect(relay, { token: tokenA, clientType: 'session-scoped', sessionId: sid });
    agentA.on('rpc-request', (_request: unknown, ack: (value: string) => void) => ack('b2s='));
    const registered = next(agentA, 'rpc-registered');
    agentA.emit('rpc-register', { method: `${sid}:abort` });
    await registered;
    const uiA = await connect(relay, { token: tokenA, clientType: 'user-scoped' });
    const uiB = await connect(relay, { token: tokenB, clientType: 'user-scoped' });
    expect(await uiA.emitWithAck('rpc-call', { method: `${sid}:abort`, params: 'e30=' })).toEqual({
      ok: true,
      result: 'b2s=',
    });
    expect(await uiB.emitWithAck('rpc-call', { method: `${sid}:abort`, params: 'e30=' })).toEqual({
      ok: false,
      error: 'RPC method not available',
    });
  });
});
