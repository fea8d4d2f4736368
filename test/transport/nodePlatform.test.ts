import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterEach, beforeAll, describe, expect, test } from 'vitest';
import { decodeBase64, encodeBase64, useBase64Encoder } from '../../packages/sdk/src/crypto/base64.js';
import { isSdkError } from 'happy-session';
import { HappyHttp } from '../../packages/sdk/src/transport/httpClient.js';
import { httpExchange } from '../../packages/sdk/src/transport/httpExchange.js';
import {
  installNodeHttpExchange,
  nodeHttpExchange,
} from '../../packages/sdk/src/transport/nodeHttpExchange.js';
import { nodeBase64 } from '../../packages/sdk/src/transport/nodePlatform.js';

type Handler = (req: IncomingMessage, res: ServerResponse, body: string) => void;

/** A plain HTTP server on a real socket that counts the connections it accepts. */
async function serve(handler: Handler): Promise<{ url: string; server: Server; connections: () => number }> {
  let connections = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handler(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  servers.push(server);
  return { url: `http://127.0.0.1:${port}`, server, connections: () => connections };
}

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
});

describe('node:http exchange (docs/transport.md, "HTTP")', () => {
  beforeAll(() => {
    // What happy-session/node and connect() do: HappyHttp without a fetch of its own uses it.
    installNodeHttpExchange();
    expect(httpExchange()).toBe(nodeHttpExchange);
  });

  test('consecutive requests to a server reuse one keep-alive connection, as the global fetch does', async () => {
    const { url, connections } = await serve((_req, res, body) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ echo: JSON.parse(body) as unknown }));
    });
    const answers = [];
    for (let i = 0; i < 5; i++) {
      answers.push(
        await nodeHttpExchange({
          method: 'POST',
          url: `${url}/v3/sessions/s/messages`,
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify({ i }),
          signal: AbortSignal.timeout(5000),
        }),
      );
    }
    expect(answers.map((a) => [a.status, a.text])).toEqual(
      [0, 1, 2, 3, 4].map((i) => [200, JSON.stringify({ echo: { i } })]),
    );
    expect(connections()).toBe(1);
  });

  test('onSent comes once, when the whole request is written and before the answer', async () => {
    const events: string[] = [];
    let answer: (release: () => void) => void = () => undefined;
    const ready = new Promise<() => void>((resolve) => (answer = resolve));
    const { url } = await serve((_req, res, body) => {
      events.push(`server has ${body.length} bytes`);
      answer(() => res.end('{}'));
    });
    const body = JSON.stringify({ messages: [{ localId: 'a', content: 'x'.repeat(100_000) }] });
    const answered = nodeHttpExchange({
      method: 'POST',
      url: `${url}/v3/sessions/s/messages`,
      headers: { 'Content-Type': 'application/json' },
      body,
      signal: AbortSignal.timeout(5000),
      onSent: () => events.push('sent'),
    }).then((a) => events.push(`answered ${a.status}`));
    (await ready)();
    await answered;
    expect(events).toEqual(['sent', `server has ${body.length} bytes`, 'answered 200']);
  });

  test('a status other than 2xx is an answer with its Retry-After; HappyHttp makes it an SdkError', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(429, { 'retry-after': '7', 'content-type': 'application/json' });
      res.end('{"error":"slow down"}');
    });
    const raw = await nodeHttpExchange({
      method: 'GET',
      url: `${url}/v1/sessions`,
      headers: {},
      signal: AbortSignal.timeout(5000),
    });
    expect(raw).toEqual({ status: 429, retryAfter: '7', server: null, text: '{"error":"slow down"}' });
  });

  test('a connection that closes mid-answer rejects: HappyHttp reports transport.network', async () => {
    const { url } = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"messages":');
      res.socket?.destroy();
    });
    const http = new HappyHttp({ serverUrl: url });
    const error = await http.request('GET', '/v1/sessions').catch((e: unknown) => e);
    expect(isSdkError(error, 'transport.network')).toBe(true);
  });

  test('a request that gets no answer in time: HappyHttp reports transport.timeout', async () => {
    const { url } = await serve(() => undefined);
    const http = new HappyHttp({ serverUrl: url, timeoutMs: 50 });
    const error = await http.request('GET', '/v1/sessions').catch((e: unknown) => e);
    expect(isSdkError(error, 'transport.timeout')).toBe(true);
  });
});

describe('Buffer base64 (installNodePlatform)', () => {
  test('gives the text of the portable encoder for any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 600 }), fc.nat(7), (bytes, offset) => {
        // A view into a larger buffer, as the sealed records are.
        const backing = new Uint8Array(bytes.length + offset + 3);
        backing.set(bytes, offset);
        const view = backing.subarray(offset, offset + bytes.length);
        useBase64Encoder(undefined);
        const portable = encodeBase64(view);
        useBase64Encoder(nodeBase64);
        expect(encodeBase64(view)).toBe(portable);
        expect(decodeBase64(portable)).toEqual(bytes);
      }),
    );
  });
});
