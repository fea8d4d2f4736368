import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect } from 'happy-session/node';
import { accountOn, tempDir } from '../transport/helpers.js';
import { cli, relayHome } from './helpers.js';
import type { RelayHome } from './helpers.js';

let env: RelayHome;
beforeEach(async () => {
  env = await relayHome();
});
afterEach(async () => {
  await env.close();
});

describe('happy-session sessions', () => {
  it('lists the account’s sessions with id, decrypted title, active and updated time', async () => {
    const running = await connect({
      server: env.relay.url,
      credentials: env.credentials,
      title: 'Fix the login bug',
    });
    const ended = await connect({
      server: env.relay.url,
      credentials: env.credentials,
      title: 'Old refactor',
    });
    await ended.close();
    try {
      const run = await cli(['sessions', '--server', env.relay.url], { env: { HAPPY_HOME_DIR: env.home } });
      expect(run.code).toBe(0);
      const lines = run.out.split('\n');
      expect(lines[0]).toMatch(/^ID\s+ACTIVE\s+UPDATED\s+TITLE$/);
      expect(run.out).toMatch(
        new RegExp(
          `^${running.id}\\s+yes\\s+\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d\\s+Fix the login bug  \\(.+\\)$`,
          'm',
        ),
      );
      expect(run.out).toMatch(new RegExp(`^${ended.id}\\s+no\\s+.*Old refactor`, 'm'));
    } finally {
      await running.close();
    }
  });

  it('--json prints an array with id, title, path, active, ISO times and seq', async () => {
    const session = await connect({
      server: env.relay.url,
      credentials: env.credentials,
      title: 'JSON please',
    });
    session.writer.service('hello');
    await session.writer.flush();
    try {
      const run = await cli(['sessions', '--json'], {
        env: { HAPPY_HOME_DIR: env.home, HAPPY_SERVER_URL: env.relay.url },
      });
      expect(run.code).toBe(0);
      const list = JSON.parse(run.out) as Array<Record<string, unknown>>;
      expect(list).toEqual([
        {
          id: session.id,
          title: 'JSON please',
          path: process.cwd(),
          active: true,
          createdAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          updatedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
          seq: 1,
        },
      ]);
    } finally {
      await session.close();
    }
  });

  it('says so when the account has no sessions, and lists no sessions of another account', async () => {
    const other = await accountOn(env.relay.url);
    const foreign = await connect({
      server: env.relay.url,
      credentials: other.credentials,
      title: 'Not yours',
    });
    try {
      const run = await cli(['sessions', '--server', env.relay.url], { env: { HAPPY_HOME_DIR: env.home } });
      expect(run.code).toBe(0);
      expect(run.out).toBe(`No sessions on ${env.relay.url}.`);
    } finally {
      await foreign.close();
    }
  });

  it('fails with 1 and says how to log in when there are no credentials', async () => {
    const empty = tempDir();
    try {
      const run = await cli(['sessions', '--server', env.relay.url], { env: { HAPPY_HOME_DIR: empty.path } });
      expect(run.code).toBe(1);
      expect(run.err).toContain(`No Happy credentials in ${empty.path}`);
      expect(run.err).toContain(
        'hint: for the local relay (`happy-session serve`) run `happy-session keygen`; for a Happy server run `happy-session login`',
      );
      expect(run.err).toContain('code: credentials.missing');
    } finally {
      empty.remove();
    }
  });

  it('refuses a key file others can read, with the chmod to run', async () => {
    const file = join(env.home, 'agent.key');
    chmodSync(file, 0o644);
    const run = await cli(['sessions', '--server', env.relay.url], { env: { HAPPY_HOME_DIR: env.home } });
    expect(run.code).toBe(1);
    expect(run.err).toContain(`hint: chmod 600 ${file}`);
  });

  it('a refused token with the secret beside it: a new token from the secret, saved for this server, and the list is shown', async () => {
    const file = join(env.home, 'agent.key');
    const secret = Buffer.from(env.masterSecret).toString('base64');
    writeFileSync(file, JSON.stringify({ token: 'forged', secret }), { mode: 0o600 });
    const run = await cli(['sessions', '--server', env.relay.url, '--json'], {
      env: { HAPPY_HOME_DIR: env.home },
    });
    expect(run.code).toBe(0);
    // agent.key keeps its own token; the new one is saved for this server beside it.
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ token: 'forged', secret });
    const tokens = JSON.parse(readFileSync(join(env.home, 'happy-session', 'tokens.json'), 'utf8')) as Record<
      string,
      string
    >;
    expect(tokens[env.relay.url]).toMatch(/./);
  });

  it('fails with 1 when the token is refused and there is no secret to get another', async () => {
    rmSync(join(env.home, 'agent.key'));
    const key = (): string => Buffer.from(randomBytes(32)).toString('base64');
    writeFileSync(
      join(env.home, 'access.key'),
      JSON.stringify({ token: 'forged', encryption: { publicKey: key(), machineKey: key() } }),
      { mode: 0o600 },
    );
    const run = await cli(['sessions', '--server', env.relay.url], { env: { HAPPY_HOME_DIR: env.home } });
    expect(run.code).toBe(1);
    expect(run.err).toContain('code: transport.unauthorized');
  });
});
