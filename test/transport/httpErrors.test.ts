import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { SdkError } from 'happy-session';
import { HappyServerTransport } from 'happy-session/node';
import { HappyHttp } from 'happy-session/internal';
import { isRetryableTransportError } from 'happy-session/ports';
import { relayWithAccount } from './helpers.js';
import type { RelayAccount } from './helpers.js';

async function failure(promise: Promise<unknown>): Promise<SdkError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof SdkError) return error;
    throw error;
  }
  throw new Error('expected an SdkError');
}

describe('HTTP failures map to transport codes', () => {
  let account: RelayAccount;
  beforeAll(async () => {
    account = await relayWithAccount();
  });
  afterAll(() => account.relay.close());

  test('401 → transport.unauthorized, with the status and the server body', async () => {
    const http = new HappyHttp({ serverUrl: account.relay.url, token: 'not-a-token' });
    const error = await failure(http.request('GET', '/v1/sessions'));
    expect(error.code).toBe('transport.unauthorized');
    expect(error.details).toMatchObject({ status: 401 });
    expect(isRetryableTransportError(error)).toBe(false);
  });

  test('404 → transport.not_found (a session of nobody)', async () => {
    const transport = new HappyServerTransport({
      serverUrl: account.relay.url,
      token: account.token,
      sessionId: 'nope',
    });
    try {
      const error = await failure(transport.read(0));
      expect(error.code).toBe('transport.not_found');
      expect(error.details).toMatchObject({ status: 404, body: { error: 'Session not found' } });
    } finally {
      await transport.close({ end: false, archive: false });
    }
  });

  test('other 4xx → transport.rejected with details.status and the body', async () => {
    const error = await failure(
      account.http.request('GET', '/v3/sessions/x/messages?after_seq=1&before_seq=2'),
    );
    expect(error.code).toBe('transport.rejected');
    expect(error.details?.status).toBe(400);
    expect(error.details?.body).toBeTruthy();
    expect(isRetryableTransportError(error)).toBe(false);
  });

  test('nothing listening → transport.network (retryable)', async () => {
    const server = createServer();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((r) => server.close(() => r()));
    const error = await failure(
      new HappyHttp({ serverUrl: `http://127.0.0.1:${port}` }).request('GET', '/v1/sessions'),
    );
    expect(error.code).toBe('transport.network');
    expect(isRetryableTransportError(error)).toBe(true);
  });

  test('5xx → transport.server_error (retryable); a non-JSON body is kept as text', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('down for maintenance');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      const error = await failure(
        new HappyHttp({ serverUrl: `http://127.0.0.1:${port}` }).request('GET', '/v1/sessions'),
      );
      expect(error.code).toBe('transport.server_error');
      expect(error.details).toMatchObject({ status: 503, body: 'down for maintenance' });
      expect(isRetryableTransportError(error)).toBe(true);
    } finally {
      await new Promise<void>((r) => server.close(() => r()));
    }
  });

  test('a 2xx of the wrong shape → transport.bad_response', async () => {
    const server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"messages":"nope"}');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    const transport = new HappyServerTransport({
      serverUrl: `http://127.0.0.1:${port}`,
      token: 't',
      sessionId: 's',
    });
    try {
      expect((await failure(transport.read(0))).code).toBe('transport.bad_response');
    } finally {
      await transport.close({ end: false, archive: false });
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    }
  });
});
