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
} from './helpers.js';

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

describe('handshake (§2.1)', () => {
  it('refuses with the real connect_error messages', async () => {
    expect(await connectError(relay, { clientType: 'user-scoped' })).toBe('Missing authentication token');
    expect(await connectError(relay, { token, clientType: 'session-scoped' })).toBe(
      'Session ID required for session-scoped clients',
    );
    expect(await connectError(relay, { token, clientType: 'machine-scoped' })).toBe(
      'Machine ID required for machine-scoped clients',
    );
    expect(await connectError(relay, { token: 'hsr1.e30.AAAA', clientType: 'user-scoped' })).toBe(
      'Invalid authentication token',
    );
  });

  it('accepts the three scopes, and a machine socket is announced to UIs', async () => {
    const ui = await connect(relay, { token, clientType: 'user-scoped' });
    await connect(relay, { token, clientType: 'session-scoped', sessionId });
    const announced = next(ui, 'ephemeral');
    await connect(relay, { token, clientType: 'machine-scoped', machineId: 'machine-1' });
    expect(await announced).toEqual({
      type: 'machine-activity',
      id: 'machine-1',
      active: true,
      activeAt: expect.any(Number),
    });
  });

  it('answers ping with {}', async () => {
    const socket = await connect(relay, { token, clientType: 'session-scoped', sessionId });
    expect(await socket.emitWithAck('ping')).toEqual({});
  });
});

describe('update-metadata and update-state (§2.4, §4.4)', () => {
  it('updates metadata at the expected version and tells the writer and the UIs', async () => {
    const agent = await connect(relay, { token, clientType: 'session-scoped', sessionId });
    const ui = await connect(relay, { token, clientType: 'user-scoped' });
    const ownEcho = next(agent, 'update');
    const uiEcho = next(ui, 'update');
    const ack = await agent.emitWithAck('update-metadata', {
      sid: sessionId,
      metadata: 'bmV3',
      expectedVersion: 0,
    });
    expect(ack).toEqual({ result: 'success', version: 1, metadata: 'bmV3' });
    const expectedBody = { t: 'update-session', id: sessionId, metadata: { value: 'bmV3', version: 1 } };
    expect((await ownEcho).body).toEqual(expectedBody);
    expect((await uiEcho).body).toEqual(expectedBody);
  });

  it('answers a stale expectedVersion with version-mismatch and the current value', async () => {
    const agent = await connect(relay, { token, clientType: 'session-scoped', sessionId });
    await agent.emitWithAck('update-metadata', { sid: sessionId, metadata: 'djE=', expectedVersion: 0 });
    const stale = await agent.emitWithAck('update-metadata', {
      sid: sessionId,
      metadata: 'djI=',
      expectedVersion: 0,
    });
    expect(stale).toEqual({ result: 'version-mismatch', version: 1, metadata: 'djE=' });
    const [session] = (await http(relay, token).get('/v1/sessions')).body.sessions;
    expect(session).toMatchObject({ metadata: 'djE=', metadataVersion: 1 });
  });

  it('answers a malformed update with result error', async () => {
    const agent = await connect(relay, { token, clientType: 'session-scoped', sessionId });
    expect(
      await agent.emitWithAck('update-metadata', { sid: sessionId, metadata: 5, expectedVersion: 0 }),
    ).toEqual({
      result: 'error',
    });
    expect(
      await agent.emitWithAck('update-state', { sid: sessionId, agentState: 'x', expectedVersion: '0' }),
    ).toEqual({
      result: 'error',
    });
  });

  it('sends no ack at all for metadata of an unknown session', async () => {
    const agent = await connect(relay, { token, clientType: 'session-scoped', sessionId });
    const acks: unknown[] = [];
    agent.emit('update-metadata', { sid: 'cunknown', metadata: 'eA==', expectedVersion: 0 }, (ack: unknown) =>
      acks.push(ack),
    );
    await settle(agent);
    expect(acks).toEqual([]);
  });

  it('updates agentState (null included) with versions and echoes it', async () => {
    const agent = await connect(relay, { token, clientType: 'session-scoped', sessionId });
    const echo = next(agent, 'update');
    expect(
      await agent.emitWithAck('update-state', { sid: sessionId, agentState: 'c3Q=', expectedVersion: 0 }),
    ).toEqual({
      result: 'success',
      version: 1,
      agentState: 'c3Q=',
    });
    expect((await echo).body).toEqual({
      t: 'update-session',
      id: sessionId,
      agentState: { value: 'c3Q=', version: 1 },
    });
    expect(
      await agent.emitWithAck('update-state', { sid: sessionId, agentState: null, expectedVersion: 1 }),
    ).toEqual({
      result: 'success',
      version: 2,
      agentState: null,
    });
    expect(
      await agent.emitWithAck('update-state', { sid: sessionId, agentState: 'eA==', expectedVersion: 1 }),
    ).toEqual({
      result: 'version-mismatch',
      version: 2,
      agentState: null,
    });
    expect(
      await agent.emitWithAck('update-state', { sid: 'cunknown', agentState: 'eA==', expectedVersion: 0 }),
    ).toEqual({ result: 'error' });
  });
});

describe('liveness (§4.5)', () => {
  it('session-alive becomes an activity ephemeral for UIs, with future times clamped to now', async () => {
    const agent = await connect(relay, { token, clientType: 'session-scoped', sessionId });
    const ui = await connect(relay, { token, clientType: 'user-scoped' });
    const agentEphemerals = record(agent, 'ephemeral');
    const activity = next(ui, 'ephemeral');
    const future = Date.now() + 60 * 60_000;
    agent.emit('session-alive', { sid: sessionId, time: future, thinking: true });
    const seen = await activity;
    expect(seen).toEqual({
      type: 'activity',
      id: sessionId,
      active: true,
      activeAt: expect.any(Number),
      thinking: true,
    });
    expect(seen.activeAt).toBeLessThan(future);
    await settle(agent);
    expect(agentEphemerals).toEqual([]);
  });

  it('drops heartbeats older than ten minutes and heartbeats of unknown sessions', async () => {
    const agent = await connect(relay, { token, clientType: 'session-scoped', sessionId });
    const ui = await connect(relay, { token, clientType: 'user-scoped' });
    const seen = record(ui, 'ephemeral');
    agent.emit('session-alive', { sid: sessionId, time: Date.now() - 11 * 60_000 });
    agent.emit('session-alive', { sid: 'cunknown', time: Date.now() });
    const marker = Date.now();
    const fresh = next(ui, 'ephemeral');
    agent.emit('session-alive', { sid: sessionId, time: marker, thinking: false });
    await fresh;
    expect(seen).toEqual([
      { type: 'activity', id: sessionId, active: true, activeAt: marker, thinking: false },
    ]);
  });

  it('session-end sets active false, tells UIs, and ignores heartbeats until the tag is loaded again', async () => {
    const tag = 'resumable';
    const session = await http(relay, token).post('/v1/sessions', { tag, metadata: 'AA==' });
    const sid = session.body.session.id as string;
    const agent = await connect(relay, { token, clientType: 'session-scoped', sessionId: sid });
    const ui = await connect(relay, { token, clientType: 'user-scoped' });
    const seen = record(ui, 'ephemeral');
    const ended = next(ui, 'ephemeral');
    const endTime = Date.now();
    agent.emit('session-end', { sid, time: endTime });
    expect(await ended).toEqual({
      type: 'activity',
      id: sid,
      active: false,
      activeAt: endTime,
      thinking: false,
    });

    agent.emit('session-alive', { sid, time: Date.now() });
    await settle(agent);
    const stopped = (await http(relay, token).get('/v1/sessions')).body.sessions.find(
      (s: { id: string }) => s.id === sid,
    );
    expect(stopped).toMatchObject({ active: false, activeAt: endTime });

    // Loading the session by its tag lifts the suppression (§4.1).
    await http(relay, token).post('/v1/sessions', { tag, metadata: 'AA==' });
    const revived = next(ui, 'ephemeral', (e: { active: boolean }) => e.active);
    agent.emit('session-alive', { sid, time: Date.now() });
    expect(await revived).toMatchObject({ type: 'activity', id: sid, active: true });
    // The heartbeat sent while stopped never reached the UI: the first active event is the revived one.
    expect(seen.filter((e: { active: boolean }) => e.active)).toHaveLength(1);
    const [live] = (await http(relay, token).get('/v2/sessions/active')).body.sessions;
    expect(live).toMatchObject({ id: sid, active: true });
  });
});

describe('usage-report (§9 item 3)', () => {
  it('upserts per key, acks with the report, and sends usage to UIs', async () => {
    const agent = await connect(relay, { token, clientType: 'session-scoped', sessionId });
    const ui = await connect(relay, { token, clientType: 'user-scoped' });
    const usage = next(ui, 'ephemeral');
    const report = {
      key: 'claude-session',
      sessionId,
      tokens: { total: 10, input: 7 },
      cost: { total: 0.5 },
    };
    const first = await agent.emitWithAck('usage-report', report);
    expect(first).toEqual({
      success: true,
      reportId: expect.any(String),
      createdAt: expect.any(Number),
      updatedAt: expect.any(Number),
    });
    expect(await usage).toEqual({
      type: 'usage',
      id: sessionId,
      key: 'claude-session',
      tokens: report.tokens,
      cost: report.cost,
      timestamp: expect.any(Number),
    });
    const second = await agent.emitWithAck('usage-report', { ...report, tokens: { total: 20 } });
    expect(second.reportId).toBe(first.reportId);
    expect(await agent.emitWithAck('usage-report', { ...report, tokens: {} })).toEqual({
      success: false,
      error: 'Invalid tokens object - must include total',
    });
    expect(await agent.emitWithAck('usage-report', { ...report, sessionId: 'cunknown' })).toEqual({
      success: false,
      error: 'Session not found',
    });
  });
});
