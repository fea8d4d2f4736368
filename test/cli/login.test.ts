import { existsSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loginCommand } from '../../packages/cli/src/commands/login.js';
import { encodeBase64, sealPairingResponse } from 'happy-session/crypto';
import { decodeBase64Url, randomBytes } from 'happy-session/internal';
import type { CliErrorCode } from '../../packages/cli/src/errorCodes.js';
import { isSdkError } from 'happy-session';
import { startRelay } from 'happy-session-relay';
import type { Relay } from 'happy-session-relay';
import { loadCredentials } from 'happy-session/node';
import { mintToken, HappyHttp } from 'happy-session/internal';
import { accountOn, tempDir } from '../transport/helpers.js';

let relay: Relay;
let home: { path: string; remove: () => void };
beforeEach(async () => {
  relay = await startRelay();
  home = tempDir('happy-login-');
});
afterEach(async () => {
  await relay.close();
  home.remove();
});

/** Runs login in process and hands over the QR link once it is printed. */
function startLogin(options: { force?: boolean; signal?: AbortSignal; timeoutMs?: number } = {}) {
  const lines: string[] = [];
  let linkShown!: (link: string) => void;
  const link = new Promise<string>((resolve) => (linkShown = resolve));
  const homeDir = join(home.path, 'happy');
  const done = loginCommand(
    { server: relay.url, ...(options.force ? { force: true } : {}) },
    (line) => {
      lines.push(line);
      if (line.startsWith('happy:///account?')) linkShown(line);
    },
    { homeDir, env: {}, ...(options.signal ? { signal: options.signal } : {}) },
    { pollIntervalMs: 20, ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}) },
  );
  return { done, link, lines, homeDir };
}

/** The app's side of account linking (docs/wire.md §1.4): box the master secret to the link's key. */
async function approve(
  link: string,
  masterSecret: Uint8Array,
  plaintext: Uint8Array = masterSecret,
): Promise<void> {
  const app = await tokenFor(masterSecret);
  const publicKey = decodeBase64Url(link.slice('happy:///account?'.length));
  await app.request('POST', '/v1/auth/account/response', {
    publicKey: encodeBase64(publicKey),
    response: encodeBase64(sealPairingResponse(plaintext, publicKey)),
  });
}

/** HTTP as the account of `masterSecret` (the app signs in with the challenge flow, §1.2). */
async function tokenFor(masterSecret: Uint8Array): Promise<HappyHttp> {
  const token = await mintToken(new HappyHttp({ serverUrl: relay.url }), masterSecret);
  return new HappyHttp({ serverUrl: relay.url, token });
}

describe('happy-session login (account linking, §1.4)', () => {
  it('prints a QR code and the link, and once the app approves writes agent.key 0600 in a 0700 dir', async () => {
    const login = startLogin();
    const link = await login.link;
    expect(link).toMatch(/^happy:\/\/\/account\?[A-Za-z0-9_-]{43}$/);
    // qrcode-terminal's small mode draws with half blocks.
    expect(login.lines.some((l) => /[▀▄█]/.test(l))).toBe(true);

    const masterSecret = randomBytes(32);
    await approve(link, masterSecret);
    expect(await login.done).toBe(0);

    const file = join(login.homeDir, 'agent.key');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(login.homeDir).mode & 0o777).toBe(0o700);
    expect(login.lines).toContain(`Logged in. Wrote ${file} (mode 0600).`);
    const credentials = loadCredentials({ homeDir: login.homeDir });
    expect(credentials.kind).toBe('master');
    if (credentials.kind !== 'master') return;
    expect(Buffer.from(credentials.masterSecret)).toEqual(Buffer.from(masterSecret));
    // The minted token belongs to the linked account: it sees that account's sessions.
    const mine = await (
      await tokenFor(masterSecret)
    ).request('POST', '/v1/sessions', { tag: 't', metadata: 'AA==' });
    const seen = await new HappyHttp({ serverUrl: relay.url, token: credentials.token }).request<{
      sessions: Array<{ id: string }>;
    }>('GET', '/v1/sessions');
    expect(seen.sessions.map((s) => s.id)).toEqual([(mine as { session: { id: string } }).session.id]);
  });

  it('keeps an existing agent.key unless --force', async () => {
    const homeDir = join(home.path, 'happy');
    mkdirSync(homeDir, { recursive: true, mode: 0o700 });
    writeFileSync(join(homeDir, 'agent.key'), '{"secret":"kept"}', { mode: 0o600 });
    const refused = startLogin();
    await expect(refused.done).rejects.toSatisfy((e) => isSdkError<CliErrorCode>(e, 'cli.already_logged_in'));
    expect(readFileSync(join(homeDir, 'agent.key'), 'utf8')).toBe('{"secret":"kept"}');

    const forced = startLogin({ force: true });
    const masterSecret = randomBytes(32);
    await approve(await forced.link, masterSecret);
    expect(await forced.done).toBe(0);
    const credentials = loadCredentials({ homeDir });
    expect(
      credentials.kind === 'master' &&
        Buffer.from(credentials.masterSecret).equals(Buffer.from(masterSecret)),
    ).toBe(true);
  });

  it('gives up with cli.login_timeout when nobody approves in time, writing nothing', async () => {
    const login = startLogin({ timeoutMs: 100 });
    await expect(login.done).rejects.toSatisfy((e) => isSdkError<CliErrorCode>(e, 'cli.login_timeout'));
    expect(existsSync(join(login.homeDir, 'agent.key'))).toBe(false);
  });

  it('stops with 130 when cancelled (Ctrl-C), writing nothing', async () => {
    const controller = new AbortController();
    const login = startLogin({ signal: controller.signal });
    await login.link;
    controller.abort();
    expect(await login.done).toBe(130);
    expect(login.lines).toContain('Login cancelled.');
    expect(existsSync(join(login.homeDir, 'agent.key'))).toBe(false);
  });

  it('refuses an answer that is a public key (terminal pairing V2), not the account secret', async () => {
    const login = startLogin();
    const secret = randomBytes(32);
    await approve(await login.link, secret, new Uint8Array([0, ...randomBytes(32)]));
    await expect(login.done).rejects.toSatisfy((e) => isSdkError<CliErrorCode>(e, 'cli.login_wrong_answer'));
    expect(existsSync(join(login.homeDir, 'agent.key'))).toBe(false);
  });

  it('refuses an answer boxed to another key', async () => {
    const login = startLogin();
    const link = await login.link;
    const app = await accountOn(relay.url);
    const publicKey = decodeBase64Url(link.slice('happy:///account?'.length));
    await app.http.request('POST', '/v1/auth/account/response', {
      publicKey: encodeBase64(publicKey),
      response: encodeBase64(sealPairingResponse(randomBytes(32), randomBytes(32))),
    });
    await expect(login.done).rejects.toSatisfy((e) => isSdkError(e, 'crypto.auth_failed'));
  });
});
