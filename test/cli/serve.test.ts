import { afterEach, describe, expect, it } from 'vitest';
import { decodeBase64, encodeBase64 } from 'happy-session/crypto';
import { randomBytes, encodeBase64Url, secretboxOpen } from 'happy-session/internal';
import { viewerUrl, startRelay } from 'happy-session-relay';
import { writeAgentKey, connect } from 'happy-session/node';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchChromium } from '../viewer/chromium.js';
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
    const serve = spawnCli(['serve', '--port', '0', '--memory']);
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
      const run = await cli(['serve', '--port', String(taken.port), '--memory']);
      expect(run.code).toBe(1);
      expect(run.err).toContain(`Port ${taken.port} is already in use.`);
      expect(run.err).toContain('hint: pick another with --port, or --port 0 for a free one');
      expect(run.err).toContain('code: cli.port_in_use');
    } finally {
      await taken.close();
    }
  });
});

describe('happy-session serve keeps what it is given', () => {
  /** Starts `serve --json` with `args` in `home`; resolves with its URL and data dir once it listens. */
  async function serveIn(home: string, args: string[] = []) {
    const serve = spawnCli(['serve', '--port', '0', '--json', ...args], { HAPPY_HOME_DIR: home });
    const line = (await serve.waitFor('\n')).split('\n')[0]!;
    const { url, dataDir } = JSON.parse(line) as { url: string; dataDir: string | null };
    return { serve, url, dataDir };
  }

  it('stores on disk under the happy home by default (0700 / 0600); restarted, it keeps its sessions', async () => {
    const home = mkdtempSync(join(tmpdir(), 'happy-serve-'));
    dirs.push(home);
    const secret = randomBytes(32);
    writeAgentKey(home, { secret });
    const first = await serveIn(home);
    expect(first.dataDir).toBe(join(home, 'relay'));
    const session = await connect({
      server: first.url,
      credentials: { kind: 'master', masterSecret: secret },
      title: 'Kept across restarts',
      archiveOnClose: false,
      shutdownSignals: false,
    });
    const turn = session.turn();
    turn.text('still here');
    turn.end();
    await session.close({ archive: false });
    first.serve.child.kill('SIGTERM');
    expect(await first.serve.exited).toBe(0);
    expect(statSync(join(home, 'relay')).mode & 0o777).toBe(0o700);
    for (const file of readdirSync(join(home, 'relay'), { withFileTypes: true }).filter((f) => f.isFile()))
      expect(statSync(join(home, 'relay', file.name)).mode & 0o777).toBe(0o600);

    const second = await serveIn(home);
    try {
      const listed = await cli(['sessions', '--server', second.url, '--json'], {
        env: { HAPPY_HOME_DIR: home },
      });
      expect(listed.code).toBe(0);
      expect(
        (JSON.parse(listed.out) as Array<{ id: string; title: string }>).map((s) => [s.id, s.title]),
      ).toEqual([[session.id, 'Kept across restarts']]);
    } finally {
      second.serve.child.kill('SIGTERM');
      expect(await second.serve.exited).toBe(0);
    }
  });

  it('--memory writes nothing to disk', async () => {
    const home = mkdtempSync(join(tmpdir(), 'happy-serve-'));
    dirs.push(home);
    const { serve, dataDir } = await serveIn(home, ['--memory']);
    expect(dataDir).toBeNull();
    serve.child.kill('SIGTERM');
    expect(await serve.exited).toBe(0);
    expect(readdirSync(home)).toEqual([]);
  });

  it('--memory with --data is a usage error', async () => {
    const run = await cli(['serve', '--memory', '--data', '/tmp/x']);
    expect(run.code).toBe(2);
    expect(run.err).toContain("option '--memory' cannot be used with option '--data <dir>'");
  });
});

describe('happy-session link', () => {
  it('prints a new one-time link for the running relay; each opens the viewer once, while the relay runs', async () => {
    const home = mkdtempSync(join(tmpdir(), 'happy-serve-'));
    dirs.push(home);
    const secret = randomBytes(32);
    writeAgentKey(home, { secret });
    const serve = spawnCli(['serve', '--port', '0'], { HAPPY_HOME_DIR: home });
    const out = await serve.waitFor('Ctrl-C stops it.');
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!;
    expect(out).toContain('`happy-session link` prints a new one while the relay runs');
    const browser = await launchChromium();
    try {
      const session = await connect({
        server: url,
        credentials: { kind: 'master', masterSecret: secret },
        title: 'Opened by a new link',
        archiveOnClose: false,
        shutdownSignals: false,
      });
      await session.close({ archive: false });
      for (const attempt of [1, 2]) {
        const linked = await cli(['link', '--json'], {
          env: { HAPPY_HOME_DIR: home, HAPPY_SERVER_URL: url },
        });
        expect(linked.code, `link ${attempt}: ${linked.err}`).toBe(0);
        const { link } = JSON.parse(linked.out) as { link: string };
        expect(link.startsWith(`${url}/#ticket=`)).toBe(true);
        for (const spelling of [encodeBase64Url(secret), encodeBase64(secret)])
          expect(link).not.toContain(spelling);
        const page = await browser.context.newPage();
        await page.goto(link);
        await page.locator('body[data-viewer="ready"]').waitFor();
        await expect(
          page.locator(`.session-item[data-session-id="${session.id}"] .session-item-title`).textContent(),
        ).resolves.toBe('Opened by a new link');
        await page.close();
        // Used once: the same ticket opens nothing again.
        const id = new URLSearchParams(new URL(link).hash.slice(1)).get('ticket')!.split('.')[0];
        const again = await fetch(`${url}/viewer/ticket`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ id }),
        });
        expect(again.status).toBe(404);
      }
    } finally {
      await browser.close();
      serve.child.kill('SIGINT');
      expect(await serve.exited).toBe(0);
    }
  });

  it('keeps no sealed secret for a request without the account token', async () => {
    const relay = await startRelay();
    try {
      const unauthenticated = await fetch(`${relay.url}/viewer/tickets`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ sealed: encodeBase64(randomBytes(72)) }),
      });
      expect(unauthenticated.status).toBe(401);
    } finally {
      await relay.close();
    }
  });
});
