import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeBase64 } from 'happy-session/crypto';
import { randomBytes } from 'happy-session/internal';
import { startRelay } from 'happy-session-relay';
import type { Relay } from 'happy-session-relay';
import { connect, loadCredentials } from 'happy-session/node';
import { tempDir } from '../transport/helpers.js';
import { cli } from './helpers.js';

let relay: Relay;
let home: { path: string; remove: () => void };
beforeEach(async () => {
  relay = await startRelay();
  home = tempDir('happy-keygen-');
});
afterEach(async () => {
  await relay.close();
  home.remove();
});

const keyFile = (): string => join(home.path, 'agent.key');

describe('happy-session keygen', () => {
  it('writes a new agent.key (mode 0600) with the secret only when no server is named; the relay makes the account on first use', async () => {
    const run = await cli(['keygen'], { env: { HAPPY_HOME_DIR: home.path } });
    expect(run.code).toBe(0);
    expect(run.out).toContain(`Wrote ${keyFile()} (mode 0600): a new account key.`);
    expect(statSync(keyFile()).mode & 0o777).toBe(0o600);
    expect(Object.keys(JSON.parse(readFileSync(keyFile(), 'utf8')))).toEqual(['secret']);

    const listed = await cli(['sessions', '--server', relay.url], { env: { HAPPY_HOME_DIR: home.path } });
    expect(listed.code).toBe(0);
    expect(listed.out).toBe(`No sessions on ${relay.url}.`);
  });

  it('signs in on a named server and stores the token: {token, secret}, as happy-agent keeps it', async () => {
    const run = await cli(['keygen', '--json'], {
      env: { HAPPY_HOME_DIR: home.path, HAPPY_SERVER_URL: relay.url },
    });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.out)).toEqual({ file: keyFile(), server: relay.url, token: true });
    const stored = JSON.parse(readFileSync(keyFile(), 'utf8')) as Record<string, string>;
    expect(Object.keys(stored)).toEqual(['token', 'secret']);
    const session = await connect({ homeDir: home.path, server: relay.url, title: 'made with a keygen key' });
    await session.close();
    const listed = await cli(['sessions', '--json'], {
      env: { HAPPY_HOME_DIR: home.path, HAPPY_SERVER_URL: relay.url },
    });
    expect(JSON.parse(listed.out)).toMatchObject([{ id: session.id, title: 'made with a keygen key' }]);
  });

  it('never replaces an existing key: cli.key_exists, exit 1, the file untouched', async () => {
    writeFileSync(keyFile(), '{"secret":"kept"}', { mode: 0o600 });
    const run = await cli(['keygen'], { env: { HAPPY_HOME_DIR: home.path } });
    expect(run.code).toBe(1);
    expect(run.err).toContain('keygen never replaces a key');
    expect(run.err).toContain('code: cli.key_exists');
    expect(readFileSync(keyFile(), 'utf8')).toBe('{"secret":"kept"}');
  });
});

describe("a Happy user's existing agent.key", () => {
  it('works on the local relay as it is: the token minted by Happy is refused there, so one is minted from the secret', async () => {
    // happy-agent's file: compact {token, secret}; the token is the Happy server's, not the relay's.
    const secret = randomBytes(32);
    const original = JSON.stringify({
      token: 'eyJhbGciOiJIUzI1NiJ9.happy-server-token.sig',
      secret: encodeBase64(secret),
    });
    writeFileSync(keyFile(), original, { mode: 0o600 });
    expect(loadCredentials({ homeDir: home.path })).toMatchObject({ kind: 'master' });

    const session = await connect({ homeDir: home.path, server: relay.url, title: 'Happy key on the relay' });
    const listed = await cli(['sessions', '--json', '--server', relay.url], {
      env: { HAPPY_HOME_DIR: home.path },
    });
    await session.close({ archive: false });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.out)).toMatchObject([{ id: session.id, title: 'Happy key on the relay' }]);
    // The file is as Happy wrote it: its token still works on the Happy server. The relay's token
    // is kept per server beside it (docs/transport.md, "Tokens").
    expect(readFileSync(keyFile(), 'utf8')).toBe(original);
    const tokens = JSON.parse(
      readFileSync(join(home.path, 'happy-session', 'tokens.json'), 'utf8'),
    ) as Record<string, string>;
    expect(Object.keys(tokens)).toEqual([relay.url]);
  });
});
