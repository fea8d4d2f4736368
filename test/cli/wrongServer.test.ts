import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSdkError } from 'happy-session';
import { connect } from 'happy-session/node';
import { checkServerUrl } from '../../packages/sdk/src/transport/serverUrl.js';
import { cli, relayHome } from './helpers.js';
import type { RelayHome } from './helpers.js';

/**
 * Clear words for the wrong server (issue 27): a server that answers but is not Happy says so and
 * names what answered; a URL without a scheme or with a path is refused before any request, with
 * the right form in the hint. None of them waits for the server (`serverWaitMs`): each fails on
 * its first answer, or before the first request.
 */
let env: RelayHome;
const servers: Server[] = [];
let plain501: string;
let html200: string;

/** A web server that is not Happy: every request gets `status`, `body` and `Server: <name>`. */
async function notHappy(status: number, body: string, name: string): Promise<string> {
  const server = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'text/html', server: name });
    res.end(body);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as { port: number };
  return `http://127.0.0.1:${address.port}`;
}

beforeAll(async () => {
  env = await relayHome();
  plain501 = await notHappy(
    501,
    '<html><body><h1>Unsupported method</h1></body></html>',
    'SimpleHTTP/0.6 Python/3.11',
  );
  html200 = await notHappy(200, '<!doctype html><title>My app</title>', 'nginx/1.25');
});
afterAll(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
  await env.close();
});

describe('a server that answers but is not Happy', () => {
  it.each([
    [
      'HTTP 501 in HTML',
      () => plain501,
      'SimpleHTTP/0.6 Python/3.11 answered POST /v1/sessions with HTTP 501',
    ],
    ['HTTP 200 in HTML', () => html200, 'nginx/1.25 answered POST /v1/sessions with HTTP 200'],
  ])('%s: connect() fails with transport.not_happy_server naming what answered', async (_name, url, said) => {
    // A wait far longer than any test: a retry would show as a time-out, not as this error.
    const error = await connect({ server: url(), credentials: env.credentials, serverWaitMs: 600_000 }).catch(
      (e: unknown) => e,
    );
    expect(isSdkError(error, 'transport.not_happy_server')).toBe(true);
    expect((error as Error).message).toContain(`${url()} is not a Happy server: ${said}`);
  });

  it('the CLI says so with its code and hint', async () => {
    const run = await cli(['sessions', '--server', plain501], { env: { HAPPY_HOME_DIR: env.home } });
    expect(run.code).toBe(1);
    expect(run.err).toContain(`${plain501} is not a Happy server: SimpleHTTP/0.6 Python/3.11 answered`);
    expect(run.err).toContain('code: transport.not_happy_server');
    expect(run.err).toContain('hint: point HAPPY_SERVER_URL');
  });

  it('positive control: the relay is a Happy server', async () => {
    const run = await cli(['sessions', '--server', env.relay.url, '--json'], {
      env: { HAPPY_HOME_DIR: env.home },
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toEqual([]);
  });
});

describe('a server URL of the wrong form', () => {
  it.each([
    ['127.0.0.1:3456', 'has no scheme', 'http://127.0.0.1:3456'],
    ['http://127.0.0.1:3456/v1', 'has a path (/v1)', 'http://127.0.0.1:3456'],
    ['https://happy.example.com/api/', 'has a path (/api/)', 'https://happy.example.com'],
    ['ftp://127.0.0.1:3456', 'is not http or https', 'http://127.0.0.1:3456'],
    ['http://127.0.0.1:3456/?x=1', 'has a query or a fragment', 'http://127.0.0.1:3456'],
  ])('%s is refused (%s) with the right form in the hint', (url, why, right) => {
    let error: unknown;
    try {
      checkServerUrl(url);
    } catch (e) {
      error = e;
    }
    expect(isSdkError(error, 'transport.bad_server_url')).toBe(true);
    expect((error as Error).message.startsWith(`The server URL "${url}" ${why}.`)).toBe(true);
    expect((error as { hint?: string }).hint).toContain(`write it as ${right}`);
  });

  it.each([
    'http://127.0.0.1:3005',
    'http://127.0.0.1:3005/',
    'https://api.example.com',
    'http://[::1]:3005',
  ])('positive control: %s is accepted as it is (a trailing / dropped)', (url) => {
    expect(checkServerUrl(url)).toBe(url.replace(/\/$/, ''));
  });

  it('the CLI refuses a URL without a scheme before any request, with the hint', async () => {
    const port = new URL(env.relay.url).port;
    for (const [server, right] of [
      [`127.0.0.1:${port}`, env.relay.url],
      [`${env.relay.url}/v1`, env.relay.url],
    ]) {
      const run = await cli(['sessions', '--server', server!], { env: { HAPPY_HOME_DIR: env.home } });
      expect(run.code).toBe(1);
      expect(run.err).toContain('code: transport.bad_server_url');
      expect(run.err).toContain(`hint: write it as ${right}`);
    }
  });
});
