import type { Socket } from 'socket.io-client';
import { afterEach, describe, expect, it } from 'vitest';
import { startRelay, type Relay, type RelayOptions } from 'happy-session-relay';
import { closeSockets, connect, createSession, next, signIn } from './helpers.js';

let relay: Relay | undefined;
afterEach(async () => {
  closeSockets();
  await relay?.close();
  relay = undefined;
});

async function setup(options: RelayOptions = {}) {
  relay = await startRelay(options);
  const { token } = await signIn(relay);
  const sessionId = (await createSession(relay, token)).id as string;
  const agent = await connect(relay, { token, clientType: 'session-scoped', sessionId });
  const app = await connect(relay, { token, clientType: 'user-scoped' });
  return { relay, token, sessionId, agent, app };
}

async function register(socket: Socket, method: string): Promise<void> {
  const registered = next(socket, 'rpc-registered');
  socket.emit('rpc-register', { method });
  expect(await registered).toEqual({ method });
}

describe('RPC forwarding (§7.1)', () => {
  it('forwards a call to the registered socket and acks its result to the caller', async () => {
    const { agent, app, sessionId } = await setup();
    const method = `${sessionId}:permission`;
    const requests: unknown[] = [];
    agent.on('rpc-request', (request: unknown, ack: (result: string) => void) => {
      requests.push(request);
      ack('ZW5jcnlwdGVkLXJlc3VsdA==');
    });
    await register(agent, method);
    const answer = await app.emitWithAck('rpc-call', { method, params: 'ZW5jcnlwdGVkLXBhcmFtcw==' });
    expect(answer).toEqual({ ok: true, result: 'ZW5jcnlwdGVkLXJlc3VsdA==' });
    expect(requests).toEqual([{ method, params: 'ZW5jcnlwdGVkLXBhcmFtcw==' }]);
  });

  it('routes to the socket that registered last, the writer-lease holder (docs/writer-lease.md); once it leaves, to the one before', async () => {
    const { relay, token, agent, app, sessionId } = await setup();
    const method = `${sessionId}:permission`;
    const holder = await connect(relay, { token, clientType: 'session-scoped', sessionId });
    agent.on('rpc-request', (_request: unknown, ack: (result: string) => void) => ack('Zmlyc3Q='));
    holder.on('rpc-request', (_request: unknown, ack: (result: string) => void) => ack('c2Vjb25k'));
    await register(agent, method);
    // Positive control: alone, the first socket answers.
    expect(await app.emitWithAck('rpc-call', { method, params: 'e30=' })).toEqual({
      ok: true,
      result: 'Zmlyc3Q=',
    });
    await register(holder, method);
    expect(await app.emitWithAck('rpc-call', { method, params: 'e30=' })).toEqual({
      ok: true,
      result: 'c2Vjb25k',
    });
    // Registering again moves a socket to the end.
    await register(agent, method);
    expect(await app.emitWithAck('rpc-call', { method, params: 'e30=' })).toEqual({
      ok: true,
      result: 'Zmlyc3Q=',
    });
    const left = next(agent, 'rpc-unregistered');
    agent.emit('rpc-unregister', { method });
    await left;
    expect(await app.emitWithAck('rpc-call', { method, params: 'e30=' })).toEqual({
      ok: true,
      result: 'c2Vjb25k',
    });
  });

  it('waits for a target that registers after the call was made', async () => {
    const { agent, app, sessionId } = await setup({ rpcWaitMs: 10_000 });
    const method = `${sessionId}:abort`;
    agent.on('rpc-request', (_request: unknown, ack: (result: string) => void) => ack('b2s='));
    const call = app.emitWithAck('rpc-call', { method, params: 'e30=' });
    // The call is in the relay's hands before the method exists: ping round-trips behind it.
    await app.emitWithAck('ping');
    await register(agent, method);
    expect(await call).toEqual({ ok: true, result: 'b2s=' });
  });

  it('answers RPC method not available when nobody registers in time', async () => {
    const { app, sessionId } = await setup({ rpcWaitMs: 300 });
    expect(await app.emitWithAck('rpc-call', { method: `${sessionId}:bash`, params: 'e30=' })).toEqual({
      ok: false,
      error: 'RPC method not available',
    });
  });

  it('refuses a call without a method and a call to the caller itself', async () => {
    const { agent, sessionId } = await setup();
    expect(await agent.emitWithAck('rpc-call', { params: 'e30=' })).toEqual({
      ok: false,
      error: 'Invalid parameters: method is required',
    });
    const method = `${sessionId}:self`;
    await register(agent, method);
    expect(await agent.emitWithAck('rpc-call', { method, params: 'e30=' })).toEqual({
      ok: false,
      error: 'Cannot call RPC on the same socket',
    });
  });

  it('answers RPC target disconnected when the target goes away mid-call', async () => {
    const { agent, app, sessionId } = await setup();
    const method = `${sessionId}:killSession`;
    agent.on('rpc-request', () => agent.disconnect());
    await register(agent, method);
    expect(await app.emitWithAck('rpc-call', { method, params: 'e30=' })).toEqual({
      ok: false,
      error: 'RPC target disconnected',
    });
  });

  it('answers the socket.io timeout message when the target never acks', async () => {
    const { agent, app, sessionId } = await setup({ rpcCallTimeoutMs: 300 });
    const method = `${sessionId}:slow`;
    agent.on('rpc-request', () => {
      // never acks
    });
    await register(agent, method);
    expect(await app.emitWithAck('rpc-call', { method, params: 'e30=' })).toEqual({
      ok: false,
      error: 'operation has timed out',
    });
  });

  it('reports invalid names with rpc-error and stops routing after rpc-unregister', async () => {
    const { agent, app, sessionId } = await setup({ rpcWaitMs: 300 });
    const registerError = next(agent, 'rpc-error');
    agent.emit('rpc-register', { method: '' });
    expect(await registerError).toEqual({ type: 'register', error: 'Invalid method name' });
    const unregisterError = next(agent, 'rpc-error');
    agent.emit('rpc-unregister', {});
    expect(await unregisterError).toEqual({ type: 'unregister', error: 'Invalid method name' });

    const method = `${sessionId}:switch`;
    await register(agent, method);
    const unregistered = next(agent, 'rpc-unregistered');
    agent.emit('rpc-unregister', { method });
    expect(await unregistered).toEqual({ method });
    expect(await app.emitWithAck('rpc-call', { method, params: 'e30=' })).toEqual({
      ok: false,
      error: 'RPC method not available',
    });
  });
});
