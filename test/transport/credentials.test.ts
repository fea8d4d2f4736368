import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { decodeBase64, encodeBase64 } from 'happy-session/crypto';
import { randomBytes } from 'happy-session/internal';
import { SdkError } from 'happy-session';
import {
  loadCredentials,
  writeAgentKey,
  DEFAULT_SERVER_URL,
  resolveHappyHome,
  resolveServerUrl,
} from 'happy-session/node';
import { mintToken, HappyHttp } from 'happy-session/internal';
import { startRelay } from 'happy-session-relay';
import { tempDir } from './helpers.js';

let home: { path: string; remove: () => void };
beforeEach(() => {
  home = tempDir('happy-home-');
  chmodSync(home.path, 0o700);
});
afterEach(() => home.remove());

function writeKey(name: string, body: unknown, mode = 0o600): string {
  const file = join(home.path, name);
  writeFileSync(file, typeof body === 'string' ? body : JSON.stringify(body), { mode });
  chmodSync(file, mode);
  return file;
}

function failure(fn: () => unknown): SdkError {
  try {
    fn();
  } catch (error) {
    if (error instanceof SdkError) return error;
    throw error;
  }
  throw new Error('expected an SdkError');
}

describe('loadCredentials', () => {
  const secret = randomBytes(32);

  test('agent.key gives master credentials, token optional', () => {
    writeKey('agent.key', { secret: encodeBase64(secret) });
    const creds = loadCredentials({ homeDir: home.path });
    expect(creds.kind).toBe('master');
    expect(creds.kind === 'master' && encodeBase64(creds.masterSecret)).toBe(encodeBase64(secret));
    expect(creds.token).toBeUndefined();
  });

  test('agent.key wins over access.key', () => {
    writeKey('agent.key', { token: 'agent-token', secret: encodeBase64(secret) });
    writeKey('access.key', { secret: encodeBase64(randomBytes(32)), token: 'access-token' });
    expect(loadCredentials({ homeDir: home.path }).token).toBe('agent-token');
  });

  test('legacy access.key (pretty-printed, as the CLI writes it)', () => {
    writeKey('access.key', JSON.stringify({ secret: encodeBase64(secret), token: 't1' }, null, 2));
    const creds = loadCredentials({ homeDir: home.path });
    expect(creds).toMatchObject({ kind: 'legacy', token: 't1' });
  });

  test('dataKey access.key', () => {
    const publicKey = randomBytes(32);
    const machineKey = randomBytes(32);
    writeKey('access.key', {
      encryption: { publicKey: encodeBase64(publicKey), machineKey: encodeBase64(machineKey) },
      token: 't2',
    });
    const creds = loadCredentials({ homeDir: home.path });
    expect(creds.kind).toBe('dataKey');
    if (creds.kind !== 'dataKey') return;
    expect(encodeBase64(creds.contentPublicKey)).toBe(encodeBase64(publicKey));
    expect(encodeBase64(creds.machineKey)).toBe(encodeBase64(machineKey));
  });

  test('HAPPY_HOME_DIR from the environment is used', () => {
    writeKey('agent.key', { token: 'env-token', secret: encodeBase64(secret) });
    expect(loadCredentials({ env: { HAPPY_HOME_DIR: home.path } }).token).toBe('env-token');
  });

  test('no key file: credentials.missing, hint says which command gets a key for which server', () => {
    const error = failure(() => loadCredentials({ homeDir: home.path }));
    expect(error.code).toBe('credentials.missing');
    expect(error.hint).toContain('for the local relay (`happy-session serve`) run `happy-session keygen`');
    expect(error.hint).toContain('for a Happy server run `happy-session login` (pairs with the Happy app)');
  });

  test.each([
    ['not JSON', 'agent.key', '{nope'],
    ['a JSON array', 'agent.key', '[]'],
    ['no secret', 'agent.key', { token: 'x' }],
    ['a short secret', 'agent.key', { secret: encodeBase64(randomBytes(16)) }],
    ['a secret that is not base64', 'agent.key', { secret: '***' }],
    ['access.key without token', 'access.key', { secret: encodeBase64(randomBytes(32)) }],
    ['access.key with neither variant', 'access.key', { token: 'x' }],
    [
      'dataKey access.key without machineKey',
      'access.key',
      { token: 'x', encryption: { publicKey: encodeBase64(randomBytes(32)) } },
    ],
  ])('%s: credentials.malformed', (_name, file, body) => {
    writeKey(file, body);
    const error = failure(() => loadCredentials({ homeDir: home.path }));
    expect(error.code).toBe('credentials.malformed');
    expect(error.hint).toContain('happy-session login');
  });

  test.each([0o644, 0o640, 0o604, 0o660])('a key file with mode %o is refused', (mode) => {
    const file = writeKey('agent.key', { secret: encodeBase64(secret) }, mode);
    const error = failure(() => loadCredentials({ homeDir: home.path }));
    expect(error.code).toBe('credentials.insecure_permissions');
    expect(error.hint).toBe(`chmod 600 ${file}`);
  });

  test('access.key with mode 0644 is refused too', () => {
    const file = writeKey('access.key', { secret: encodeBase64(secret), token: 't' }, 0o644);
    expect(failure(() => loadCredentials({ homeDir: home.path })).hint).toBe(`chmod 600 ${file}`);
  });
});

describe('writeAgentKey', () => {
  test('writes compact {token, secret} with mode 0600 in a 0700 dir, and loads back', () => {
    const dir = join(home.path, 'nested', '.happy');
    const secret = randomBytes(32);
    const file = writeAgentKey(dir, { secret, token: 'tok' });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    const creds = loadCredentials({ homeDir: dir });
    expect(creds).toMatchObject({ kind: 'master', token: 'tok' });
    expect(creds.kind === 'master' && encodeBase64(creds.masterSecret)).toBe(encodeBase64(secret));
  });

  test('tightens an existing world-readable file', () => {
    mkdirSync(home.path, { recursive: true });
    writeKey('agent.key', '{}', 0o644);
    writeAgentKey(home.path, { secret: randomBytes(32), token: 'tok' });
    expect(statSync(join(home.path, 'agent.key')).mode & 0o777).toBe(0o600);
  });
});

describe('server URL and home directory', () => {
  test('HAPPY_SERVER_URL wins, trailing slash removed', () => {
    writeFileSync(join(home.path, 'settings.json'), JSON.stringify({ serverUrl: 'http://settings' }));
    expect(resolveServerUrl({ HAPPY_SERVER_URL: 'http://env:1234/' }, home.path)).toBe('http://env:1234');
  });

  test('then serverUrl from settings.json', () => {
    writeFileSync(
      join(home.path, 'settings.json'),
      JSON.stringify({ schemaVersion: 2, serverUrl: 'http://settings/' }),
    );
    expect(resolveServerUrl({}, home.path)).toBe('http://settings');
  });

  test('then the Happy default; a malformed settings.json is skipped', () => {
    writeFileSync(join(home.path, 'settings.json'), '{not json');
    expect(resolveServerUrl({}, home.path)).toBe(DEFAULT_SERVER_URL);
  });

  test('HAPPY_HOME_DIR expands a leading ~; default ~/.happy', () => {
    expect(resolveHappyHome({ HAPPY_HOME_DIR: '~/custom' })).toBe(join(homedir(), 'custom'));
    expect(resolveHappyHome({ HAPPY_HOME_DIR: '/abs/dir' })).toBe('/abs/dir');
    expect(resolveHappyHome({})).toBe(join(homedir(), '.happy'));
  });
});

describe('mintToken', () => {
  test('the challenge flow yields a token the server accepts, the same account each time', async () => {
    const relay = await startRelay();
    try {
      const secret = decodeBase64(encodeBase64(randomBytes(32)));
      const anon = new HappyHttp({ serverUrl: relay.url });
      const token = await mintToken(anon, secret);
      const again = await mintToken(anon, secret);
      const listed = await anon.withToken(token).request<{ sessions: unknown[] }>('GET', '/v1/sessions');
      expect(listed.sessions).toEqual([]);
      await anon
        .withToken(again)
        .request('POST', '/v1/sessions', { tag: 't', metadata: 'x', dataEncryptionKey: null });
      const seen = await anon.withToken(token).request<{ sessions: unknown[] }>('GET', '/v1/sessions');
      expect(seen.sessions).toHaveLength(1);
    } finally {
      await relay.close();
    }
  });
});
