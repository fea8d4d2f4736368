/**
 * How connect() starts (issue 13): credentials kept as the Happy tools keep them (a token minted
 * from the secret is saved to agent.key; a refused token is replaced from the secret), and a
 * server that does not answer yet is waited for, a bounded time. Against the relay, through a
 * proxy that counts the requests.
 */
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { encodeBase64 } from 'happy-session/crypto';
import { randomBytes } from 'happy-session/internal';
import { isSdkError } from 'happy-session';
import type { SdkError, Logger } from 'happy-session';
import { startRelay } from 'happy-session-relay';
import type { Relay } from 'happy-session-relay';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { FaultProxy } from '../helpers/faultProxy.js';
import { freePort } from './relayChild.js';
import { tempDir } from './helpers.js';

let relay: Relay;
let proxy: FaultProxy;
let home: { path: string; remove: () => void };
const sessions: Session[] = [];

beforeAll(async () => {
  relay = await startRelay();
  proxy = await new FaultProxy(relay.url).start();
});
afterAll(async () => {
  await proxy.close();
  await relay.close();
});
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close({ archive: false })));
  home?.remove();
});

function keyFile(body: unknown): string {
  home = tempDir('happy-home-');
  chmodSync(home.path, 0o700);
  const file = join(home.path, 'agent.key');
  writeFileSync(file, JSON.stringify(body), { mode: 0o600 });
  return file;
}

async function open(): Promise<Session> {
  const session = await connect({ server: proxy.url, homeDir: home.path, shutdownSignals: false });
  sessions.push(session);
  return session;
}

function authCalls(): number {
  return proxy.count('POST', '/v1/auth');
}

/** A logger that keeps what it is told. */
function recording(): Logger & { lines: string[] } {
  const lines: string[] = [];
  const keep = (message: string): void => void lines.push(message);
  return { lines, debug: () => {}, info: keep, warn: keep, error: keep };
}

describe('credentials as the Happy tools keep them', () => {
  test('a secret-only agent.key: the minted token is saved beside the secret (0600), and the next connect() does not authenticate again', async () => {
    const secret = encodeBase64(randomBytes(32));
    const file = keyFile({ secret });
    const before = authCalls();

    const first = await open();
    expect(authCalls()).toBe(before + 1);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { token?: string; secret?: string };
    expect(saved.secret).toBe(secret);
    expect(typeof saved.token).toBe('string');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    first.turn().end();
    await first.writer.flush();

    const second = await open();
    second.turn().end();
    await second.writer.flush();
    expect(authCalls()).toBe(before + 1);
  });

  test('an invalid token with a valid secret connects: one 401, one new token from the secret, saved for this server; agent.key keeps its own', async () => {
    const secret = encodeBase64(randomBytes(32));
    const file = keyFile({ token: 'hsr1.not-a.token', secret });
    const original = readFileSync(file, 'utf8');
    const before = authCalls();
    const refusedBefore = proxy.seen.length;

    const session = await open();
    const turn = session.turn();
    turn.text('connected with a fresh token');
    turn.end();
    await session.writer.flush();

    expect(authCalls()).toBe(before + 1);
    // The key file's token is the issuing server's (Happy's CLI uses it): left as it was.
    expect(readFileSync(file, 'utf8')).toBe(original);
    const tokensFile = join(home.path, 'happy-session', 'tokens.json');
    expect(statSync(tokensFile).mode & 0o777).toBe(0o600);
    const saved = (JSON.parse(readFileSync(tokensFile, 'utf8')) as Record<string, string>)[proxy.url]!;
    expect(saved).toBeTruthy();
    const sessionCreates = proxy.seen.slice(refusedBefore).filter((r) => r.url === '/v1/sessions');
    expect(sessionCreates).toHaveLength(2); // refused once with the old token, then created
    expect(sessionCreates[1]!.headers.authorization).toBe(`Bearer ${saved}`);

    // The next connect() uses the token saved for this server: no refusal, no new token.
    const again = proxy.seen.length;
    await open();
    expect(authCalls()).toBe(before + 1);
    const creates = proxy.seen.slice(again).filter((r) => r.url === '/v1/sessions');
    expect(creates.map((r) => r.headers.authorization)).toEqual([`Bearer ${saved}`]);
  });

  test('an agent.key without a secret fails with a hint to pair again', async () => {
    keyFile({ token: 'hsr1.some.token' });
    const error = (await open().catch((e: unknown) => e)) as SdkError;
    expect(error.code).toBe('credentials.malformed');
    expect(error.message).toContain('no "secret"');
    expect(error.hint).toContain('happy-session login');
  });
});

describe('connect() waits for the server', () => {
  test('nothing listening: it tries again with backoff for serverWaitMs, logs each try, then fails with transport.network and a hint that says so', async () => {
    const port = await freePort();
    const logger = recording();
    const started = Date.now();
    const error = (await connect({
      server: `http://127.0.0.1:${port}`,
      credentials: { kind: 'master', masterSecret: randomBytes(32) },
      serverWaitMs: 1500,
      logger,
      shutdownSignals: false,
    }).catch((e: unknown) => e)) as SdkError;

    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    expect(isSdkError(error, 'transport.network')).toBe(true);
    expect(error.message).toContain(`http://127.0.0.1:${port}`);
    expect(error.hint).toContain('serverWaitMs');
    expect(error.hint).not.toContain('retried automatically');
    const tries = error.details?.tries as number;
    expect(tries).toBeGreaterThanOrEqual(3);
    expect(logger.lines.filter((l) => l.includes('does not answer yet'))).toHaveLength(tries - 1);
  });

  test('a server that starts while connect() waits: it connects', async () => {
    const port = await freePort();
    const late = new Promise<Relay>((resolve) => setTimeout(() => resolve(startRelay({ port })), 700));
    try {
      const session = await connect({
        server: `http://127.0.0.1:${port}`,
        credentials: { kind: 'master', masterSecret: randomBytes(32) },
        serverWaitMs: 10_000,
        shutdownSignals: false,
      });
      sessions.push(session);
      session.turn().end();
      await session.writer.flush();
    } finally {
      await (await late).close();
    }
  });
});
