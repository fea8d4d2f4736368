import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRelay, type Relay } from 'happy-session-relay';
import { closeSockets, connect, createSession, http, next, signIn } from './helpers.js';

let relay: Relay;
let dataDir: string;
let token: string;
let sessionId: string;
beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'relay-push-'));
  relay = await startRelay({ dataDir });
  token = (await signIn(relay)).token;
  sessionId = (await createSession(relay, token)).id as string;
});
afterEach(async () => {
  closeSockets();
  await relay.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const event = {
  kind: 'permission',
  title: 'Permission request',
  body: 'My session',
  data: { sessionId: 'x', requestId: 'toolu_1' },
};

function storedPushEvents(): { kind: string; title: string; body: string; data: string; result: string }[] {
  const db = new Database(join(dataDir, 'relay.sqlite'), { readonly: true });
  try {
    return db
      .prepare('SELECT kind, title, body, data, result FROM push_events ORDER BY rowid')
      .all() as never;
  } finally {
    db.close();
  }
}

describe('POST /v1/sessions/:id/push-event (§9 item 4)', () => {
  it('answers no_tokens, records the event, and sends session-event to the session and its UIs', async () => {
    const agent = await connect(relay, { token, clientType: 'session-scoped', sessionId });
    const ui = await connect(relay, { token, clientType: 'user-scoped' });
    const toAgent = next(agent, 'ephemeral');
    const toUi = next(ui, 'ephemeral');
    const result = await http(relay, token).post(`/v1/sessions/${sessionId}/push-event`, event);
    expect(result).toMatchObject({ status: 200, body: { success: true, result: 'no_tokens' } });
    const expected = {
      type: 'session-event',
      sessionId,
      kind: 'permission',
      title: 'Permission request',
      body: 'My session',
      timestamp: expect.any(Number),
    };
    expect(await toAgent).toEqual(expected);
    expect(await toUi).toEqual(expected);
    expect(storedPushEvents()).toEqual([
      {
        kind: 'permission',
        title: 'Permission request',
        body: 'My session',
        data: JSON.stringify({ ...event.data, kind: 'permission' }),
        result: 'no_tokens',
      },
    ]);
  });

  it('answers suppressed while a UI reports that it is in the foreground', async () => {
    const ui = await connect(relay, { token, clientType: 'user-scoped', appState: 'background' });
    const api = http(relay, token);
    expect((await api.post(`/v1/sessions/${sessionId}/push-event`, event)).body.result).toBe('no_tokens');
    ui.emit('app-state', { state: 'active' });
    await ui.emitWithAck('ping');
    expect((await api.post(`/v1/sessions/${sessionId}/push-event`, event)).body).toEqual({
      success: true,
      result: 'suppressed',
      reason: 'active-ui-client',
    });
  });

  it('validates kind, title and body like the real server and records nothing invalid', async () => {
    const api = http(relay, token);
    const post = (body: unknown) => api.post(`/v1/sessions/${sessionId}/push-event`, body);
    expect((await post({ ...event, kind: 'ready' })).status).toBe(400);
    expect((await post({ ...event, title: '' })).status).toBe(400);
    expect((await post({ ...event, title: 'x'.repeat(201) })).status).toBe(400);
    expect((await post({ ...event, body: 'x'.repeat(501) })).status).toBe(400);
    expect((await post({ ...event, data: 'not an object' })).status).toBe(400);
    expect(await api.post('/v1/sessions/cunknown/push-event', event)).toMatchObject({
      status: 404,
      body: { error: 'Session not found' },
    });
    expect(storedPushEvents()).toEqual([]);
  });
});
