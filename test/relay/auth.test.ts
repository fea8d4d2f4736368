import nacl from 'tweetnacl';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startRelay, type Relay } from 'happy-session-relay';
import { b64, http, signIn } from './helpers.js';

let relay: Relay;
beforeEach(async () => {
  relay = await startRelay();
});
afterEach(async () => {
  await relay.close();
});

/** The app's side of pairing: a box bundle without version byte, addressed to `recipient` (§1.3). */
function boxBundle(plaintext: Uint8Array, recipient: Uint8Array): string {
  const ephemeral = nacl.box.keyPair();
  const nonce = nacl.randomBytes(24);
  const box = nacl.box(plaintext, nonce, recipient, ephemeral.secretKey);
  return b64(Buffer.concat([ephemeral.publicKey, nonce, box]));
}

describe('POST /v1/auth (signed challenge, §1.2)', () => {
  it('answers a valid signature with a token that opens authenticated routes', async () => {
    const account = await signIn(relay);
    expect(account.token).toEqual(expect.any(String));
    const list = await http(relay, account.token).get('/v1/sessions');
    expect(list.status).toBe(200);
    expect(list.body).toEqual({ sessions: [] });
  });

  it('refuses a signature over another challenge with 401 Invalid signature', async () => {
    const keyPair = nacl.sign.keyPair();
    const signature = nacl.sign.detached(nacl.randomBytes(32), keyPair.secretKey);
    const result = await http(relay).post('/v1/auth', {
      publicKey: b64(keyPair.publicKey),
      challenge: b64(nacl.randomBytes(32)),
      signature: b64(signature),
    });
    expect(result.status).toBe(401);
    expect(result.body).toEqual({ error: 'Invalid signature' });
  });

  it('refuses a malformed public key or signature with 401 Invalid signature', async () => {
    const result = await http(relay).post('/v1/auth', {
      publicKey: b64(nacl.randomBytes(5)),
      challenge: b64(nacl.randomBytes(32)),
      signature: b64(nacl.randomBytes(10)),
    });
    expect(result.status).toBe(401);
    expect(result.body).toEqual({ error: 'Invalid signature' });
  });

  it('answers a body without the required fields with the 400 validation shape', async () => {
    const result = await http(relay).post('/v1/auth', { publicKey: 'x' });
    expect(result.status).toBe(400);
    expect(result.body).toMatchObject({ error: 'Error', statusCode: 400 });
    expect(result.body.message).toContain('body/challenge');
  });

  it('maps the same key to the same account on every sign-in', async () => {
    const keyPair = nacl.sign.keyPair();
    const first = await signIn(relay, keyPair);
    const tag = 'same-account';
    const created = await http(relay, first.token).post('/v1/sessions', { tag, metadata: 'AA==' });
    const second = await signIn(relay, keyPair);
    const again = await http(relay, second.token).post('/v1/sessions', { tag, metadata: 'AQ==' });
    expect(again.body.session.id).toBe(created.body.session.id);
  });

  it('answers a missing or non-bearer header with 401 Missing authorization header', async () => {
    expect((await http(relay).get('/v1/sessions')).body).toEqual({ error: 'Missing authorization header' });
    const basic = await fetch(`${relay.url}/v1/sessions`, { headers: { authorization: 'Basic abc' } });
    expect(basic.status).toBe(401);
    expect(await basic.json()).toEqual({ error: 'Missing authorization header' });
  });
});

describe('terminal pairing (§1.3)', () => {
  it('goes from requested to authorized and hands over the app response and a working token', async () => {
    const app = await signIn(relay);
    const terminal = nacl.box.keyPair();
    const publicKey = b64(terminal.publicKey);
    const anon = http(relay);

    expect(
      await anon.get(`/v1/auth/request/status?publicKey=${encodeURIComponent(publicKey)}`),
    ).toMatchObject({
      status: 200,
      body: { status: 'not_found', supportsV2: false },
    });
    expect((await anon.post('/v1/auth/request', { publicKey, supportsV2: true })).body).toEqual({
      state: 'requested',
    });
    expect((await anon.post('/v1/auth/request', { publicKey, supportsV2: true })).body).toEqual({
      state: 'requested',
    });
    expect(
      (await anon.get(`/v1/auth/request/status?publicKey=${encodeURIComponent(publicKey)}`)).body,
    ).toEqual({
      status: 'pending',
      supportsV2: true,
    });

    const plaintext = Buffer.concat([Buffer.from([0]), nacl.randomBytes(32)]);
    const response = boxBundle(plaintext, terminal.publicKey);
    const approved = await http(relay, app.token).post('/v1/auth/response', { publicKey, response });
    expect(approved).toMatchObject({ status: 200, body: { success: true } });

    const polled = await anon.post('/v1/auth/request', { publicKey, supportsV2: true });
    expect(polled.body).toEqual({ state: 'authorized', token: expect.any(String), response });
    expect(
      (await anon.get(`/v1/auth/request/status?publicKey=${encodeURIComponent(publicKey)}`)).body,
    ).toEqual({
      status: 'authorized',
      supportsV2: false,
    });

    // The terminal's token belongs to the approving account: it sees that account's sessions.
    const session = await http(relay, app.token).post('/v1/sessions', { tag: 'paired', metadata: 'AA==' });
    const seen = await http(relay, polled.body.token).get('/v1/sessions');
    expect(seen.body.sessions.map((s: { id: string }) => s.id)).toEqual([session.body.session.id]);
  });

  it('keeps the first answer when the app answers twice', async () => {
    const app = await signIn(relay);
    const publicKey = b64(nacl.box.keyPair().publicKey);
    await http(relay).post('/v1/auth/request', { publicKey });
    await http(relay, app.token).post('/v1/auth/response', { publicKey, response: 'Zmlyc3Q=' });
    await http(relay, app.token).post('/v1/auth/response', { publicKey, response: 'c2Vjb25k' });
    expect((await http(relay).post('/v1/auth/request', { publicKey })).body.response).toBe('Zmlyc3Q=');
  });

  it('refuses a public key that is not 32 bytes with 401 Invalid public key', async () => {
    const result = await http(relay).post('/v1/auth/request', { publicKey: b64(nacl.randomBytes(16)) });
    expect(result).toMatchObject({ status: 401, body: { error: 'Invalid public key' } });
    const status = await http(relay).get(`/v1/auth/request/status?publicKey=${encodeURIComponent('AAAA')}`);
    expect(status.body).toEqual({ status: 'not_found', supportsV2: false });
  });

  it('answers a response to an unknown request with 404 and needs a token', async () => {
    const app = await signIn(relay);
    const publicKey = b64(nacl.box.keyPair().publicKey);
    const unknown = await http(relay, app.token).post('/v1/auth/response', { publicKey, response: 'AA==' });
    expect(unknown).toMatchObject({ status: 404, body: { error: 'Request not found' } });
    const anonymous = await http(relay).post('/v1/auth/response', { publicKey, response: 'AA==' });
    expect(anonymous).toMatchObject({ status: 401, body: { error: 'Missing authorization header' } });
  });
});

describe('account linking (§1.4)', () => {
  it('hands the boxed master secret and a token of the linking account to the new device', async () => {
    const app = await signIn(relay);
    const device = nacl.box.keyPair();
    const publicKey = b64(device.publicKey);
    expect((await http(relay).post('/v1/auth/account/request', { publicKey })).body).toEqual({
      state: 'requested',
    });

    const master = nacl.randomBytes(32);
    const response = boxBundle(master, device.publicKey);
    expect(
      (await http(relay, app.token).post('/v1/auth/account/response', { publicKey, response })).body,
    ).toEqual({
      success: true,
    });
    const polled = await http(relay).post('/v1/auth/account/request', { publicKey });
    expect(polled.body).toEqual({ state: 'authorized', token: expect.any(String), response });

    const bundle = Buffer.from(polled.body.response as string, 'base64');
    const opened = nacl.box.open(
      bundle.subarray(56),
      bundle.subarray(32, 56),
      bundle.subarray(0, 32),
      device.secretKey,
    );
    expect(opened && Buffer.from(opened).equals(Buffer.from(master))).toBe(true);
    expect((await http(relay, polled.body.token).get('/v1/sessions')).status).toBe(200);
  });

  it('keeps terminal and account requests apart', async () => {
    const app = await signIn(relay);
    const publicKey = b64(nacl.box.keyPair().publicKey);
    await http(relay).post('/v1/auth/request', { publicKey });
    const wrongFlow = await http(relay, app.token).post('/v1/auth/account/response', {
      publicKey,
      response: 'AA==',
    });
    expect(wrongFlow).toMatchObject({ status: 404, body: { error: 'Request not found' } });
  });
});
