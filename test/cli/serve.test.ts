import { afterEach, describe, expect, it } from 'vitest';
import { randomBytes } from '../../packages/sdk/src/crypto/random.js';
import { decodeBase64, encodeBase64, encodeBase64Url } from '../../packages/sdk/src/crypto/base64.js';
import { secretboxOpen } from '../../packages/sdk/src/crypto/secretbox.js';
import { viewerUrl } from '../../packages/relay/src/viewer/url.js';
import { writeAgentKey } from '../../packages/sdk/src/transport/credentials.js';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRelay } from '../../packages/relay/src/index.js';
import { cli, spawnCli } from './helpers.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe.each(['SIGINT', 'SIGTERM'] as const)('happy-session serve and %s', (signal) => {
  it('prints the URL it serves on, serves, and exits 0 on the signal', async () => {
    const data = mkdtempSync(join(tmpdir(), 'happy-serve-'));
    dirs.push(data);
    const serve = spawnCli(['serve', '--port', '0', '--data', data, '--json']);
    const first = (await serve.waitFor('\n')).split('\n')[0] as string;
    const { url, port, dataDir } = JSON.parse(first) as { url: string; port: number; dataDir: string };
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(dataDir).toBe(data);
    // A real relay: the session list needs a token.
    expect((await fetch(`${url}/v1/sessions`)).status).toBe(401);
    expect(readdirSync(data).length).toBeGreaterThan(0);

    serve.child.kill(signal);
    expect(await serve.exited).toBe(0);
    expect(serve.err()).toBe('');
  });
});

describe('happy-session serve, text output', () => {
  it('says where it listens, where the data is, and how to point an agent at it', async () => {
    const serve = spawnCli(['serve', '--port', '0']);
    const out = await serve.waitFor('Ctrl-C stops it.');
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    expect(url).toBeDefined();
    expect(out).toContain('data: in memory');
    expect(out).toContain(`HAPPY_SERVER_URL=${url}`);
    expect(out).toContain(`viewer: ${url}/ (run \`happy-session keygen\` first for an account on this relay`);
    serve.child.kill('SIGINT');
    expect(await serve.exited).toBe(0);
  });

  it("never prints the secret of this machine's agent.key; its one-time link opens the account once", async () => {
    const home = mkdtempSync(join(tmpdir(), 'happy-serve-'));
    try {
      const secret = randomBytes(32);
      writeAgentKey(home, { secret, token: 'unused' });
      const serve = spawnCli(['serve', '--port', '0', '--verbose'], { HAPPY_HOME_DIR: home });
      const out = await serve.waitFor('Ctrl-C stops it.');
      const link = /^viewer \(one-time link; the page keeps the key in your browser\): (\S+)$/m.exec(
        out,
      )?.[1];
      expect(link).toBeDefined();
      // Nothing printed holds the secret, in any spelling, on stdout or stderr.
      const printed = out + serve.err();
      for (const spelling of [
        encodeBase64Url(secret),
        encodeBase64(secret),
        Buffer.from(secret).toString('hex'),
      ]) {
        expect(printed).not.toContain(spelling);
      }
      // The link opens the account once: the relay hands out the sealed secret, which only the
      // key in the link's fragment opens, and then forgets it.
      const { origin, hash } = new URL(link!);
      const [id, key] = new URLSearchParams(hash.slice(1)).get('ticket')!.split('.');
      const redeem = () =>
        fetch(`${origin}/viewer/ticket`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ id }),
        });
      const first = await redeem();
      expect(first.status).toBe(200);
      const { sealed } = (await first.json()) as { sealed: string };
      const opened = secretboxOpen(decodeBase64(sealed), decodeBase64(key!));
      expect(opened.ok && Buffer.from(opened.value).equals(Buffer.from(secret))).toBe(true);
      expect((await redeem()).status).toBe(404);
      serve.child.kill('SIGINT');
      expect(await serve.exited).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('prints the link that holds the secret only when asked with --print-secret', async () => {
    const home = mkdtempSync(join(tmpdir(), 'happy-serve-'));
    try {
      const secret = randomBytes(32);
      writeAgentKey(home, { secret, token: 'unused' });
      const serve = spawnCli(['serve', '--port', '0', '--print-secret'], { HAPPY_HOME_DIR: home });
      const out = await serve.waitFor('Ctrl-C stops it.');
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
      expect(out).toContain(`viewer (holds your master secret, keep it private): ${viewerUrl(url!, secret)}`);
      serve.child.kill('SIGINT');
      expect(await serve.exited).toBe(0);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('fails with 1 and a hint when the port is taken', async () => {
    const taken = await startRelay();
    try {
      const run = await cli(['serve', '--port', String(taken.port)]);
      expect(run.code).toBe(1);
      expect(run.err).toContain(`Port ${taken.port} is already in use.`);
      expect(run.err).toContain('hint: pick another with --port, or --port 0 for a free one');
      expect(run.err).toContain('code: cli.port_in_use');
    } finally {
      await taken.close();
    }
  });
});
