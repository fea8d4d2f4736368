import { afterEach, describe, expect, it, vi } from 'vitest';
import { startRelay, type Relay, type RelayOptions } from 'happy-session-relay';
import { closeSockets, connect, connectError, createSession, http, next, settle, signIn } from './helpers.js';

let relay: Relay | undefined;
afterEach(async () => {
  closeSockets();
  await relay?.close();
  relay = undefined;
});

async function setup(limits: RelayOptions['limits']) {
  relay = await startRelay({ limits });
  const { token } = await signIn(relay);
  const sessionId = (await createSession(relay, token)).id as string;
  return { relay, token, sessionId };
}

describe('per-account limits (docs/relay.md, "Limits")', () => {
  it('refuses a socket over socketsPerAccount with a connect_error, for that account only', async () => {
    const { relay, token } = await setup({ socketsPerAccount: 2 });
    const first = await connect(relay, { token });
    await connect(relay, { token, clientType: 'user-scoped' });
    expect(await connectError(relay, { token })).toBe('Too many connections for this account');
    const other = await signIn(relay);
    await connect(relay, { token: other.token });
    // A socket that goes gives its place back.
    first.close();
    await vi.waitFor(() => connect(relay, { token }), { timeout: 5000, interval: 50 });
  });

  it('answers an rpc-call over rpcCallsInFlight with the real ack shape, and takes calls again after', async () => {
    const { relay, token, sessionId } = await setup({ rpcCallsInFlight: 1 });
    const agent = await connect(relay, { token, clientType: 'session-scoped', sessionId });
    const app = await connect(relay, { token, clientType: 'user-scoped' });
    const method = `${sessionId}:bash`;
    const held: Array<(result: string) => void> = [];
    agent.on('rpc-request', (_request: unknown, ack: (result: string) => void) => held.push(ack));
    const registered = next(agent, 'rpc-registered');
    agent.emit('rpc-register', { method });
    await registered;

    const arrived = next(agent, 'rpc-request');
    const first = app.emitWithAck('rpc-call', { method, params: 'e30=' });
    await arrived;
    expect(await app.emitWithAck('rpc-call', { method, params: 'e30=' })).toEqual({
      ok: false,
      error: 'Too many RPC calls in flight',
    });
    held[0]!('b2s=');
    expect(await first).toEqual({ ok: true, result: 'b2s=' });
    const third = app.emitWithAck('rpc-call', { method, params: 'e30=' });
    await vi.waitFor(() => expect(held).toHaveLength(2));
    held[1]!('b2s=');
    expect(await third).toEqual({ ok: true, result: 'b2s=' });
  });

  it('answers records over messagesPerMinute with 429, drops them on the socket path, and spares other accounts', async () => {
    const { relay, token, sessionId } = await setup({ messagesPerMinute: 5 });
    const api = http(relay, token);
    const write = (localIds: string[]) =>
      api.post(`/v3/sessions/${sessionId}/messages`, {
        messages: localIds.map((localId) => ({ content: 'QUFBQQ==', localId })),
      });
    expect((await write(['a', 'b', 'c', 'd'])).status).toBe(200);
    expect(await write(['e', 'f'])).toMatchObject({
      status: 429,
      body: { error: 'Too many messages. Slow down and try again.' },
    });
    expect((await write(['e'])).status).toBe(200);
    const agent = await connect(relay, { token, clientType: 'session-scoped', sessionId });
    agent.emit('message', { sid: sessionId, message: 'QkJCQg==', localId: 'legacy' });
    await settle(agent);
    const stored = await api.get(`/v3/sessions/${sessionId}/messages`);
    expect(stored.body.messages.map((m: { localId: string }) => m.localId)).toEqual([
      'a',
      'b',
      'c',
      'd',
      'e',
    ]);

    const other = await signIn(relay);
    const otherSession = (await createSession(relay, other.token)).id as string;
    const otherWrite = await http(relay, other.token).post(`/v3/sessions/${otherSession}/messages`, {
      messages: [{ content: 'QUFBQQ==', localId: 'x' }],
    });
    expect(otherWrite.status).toBe(200);
  });

  it('refuses a message batch over messageBatchBytes with 413 before parsing it', async () => {
    const { relay, token, sessionId } = await setup({ messageBatchBytes: 1024 });
    const big = await http(relay, token).post(`/v3/sessions/${sessionId}/messages`, {
      messages: [{ content: 'A'.repeat(2000), localId: 'big' }],
    });
    expect(big).toMatchObject({
      status: 413,
      body: { error: 'FastifyError', message: 'Request body is too large', statusCode: 413 },
    });
    const small = await http(relay, token).post(`/v3/sessions/${sessionId}/messages`, {
      messages: [{ content: 'A'.repeat(500), localId: 'small' }],
    });
    expect(small.status).toBe(200);
  });

  it('keeps every other JSON body small: a 100 KB sign-in body gets 413', async () => {
    relay = await startRelay();
    const result = await http(relay).post('/v1/auth', {
      publicKey: 'A'.repeat(100_000),
      challenge: '',
      signature: '',
    });
    expect(result).toMatchObject({ status: 413, body: { message: 'Request body is too large' } });
  });
});
