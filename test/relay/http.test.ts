import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRelay, type Relay } from 'happy-session-relay';
import { http, signIn } from './helpers.js';

let relay: Relay;
beforeEach(async () => {
  relay = await startRelay();
});
afterEach(async () => {
  await relay.close();
});

describe('HTTP basics (§0)', () => {
  it('binds 127.0.0.1 on a free port by default', () => {
    expect(relay.url).toBe(`http://127.0.0.1:${relay.port}`);
    expect(relay.port).toBeGreaterThan(0);
  });

  it('allows any origin and answers preflight requests', async () => {
    const preflight = await fetch(`${relay.url}/v3/sessions/x/messages`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://viewer.example',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type',
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-methods')).toContain('POST');
    expect(preflight.headers.get('access-control-allow-headers')).toBe('authorization, content-type');

    const { token } = await signIn(relay);
    const list = await fetch(`${relay.url}/v1/sessions`, {
      headers: { origin: 'http://viewer.example', authorization: `Bearer ${token}` },
    });
    expect(list.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers unknown routes and malformed JSON with the real shapes', async () => {
    expect(await http(relay).get('/v9/nothing')).toMatchObject({
      status: 404,
      body: { error: 'Not found', path: '/v9/nothing', method: 'GET' },
    });
    const broken = await fetch(`${relay.url}/v1/auth`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{not json',
    });
    expect(broken.status).toBe(400);
    expect(await broken.json()).toMatchObject({ statusCode: 400, message: expect.any(String) });
  });

  it('closes idempotently', async () => {
    const other = await startRelay();
    await Promise.all([other.close(), other.close()]);
    await other.close();
    await expect(fetch(`${other.url}/`)).rejects.toThrow();
  });
});
