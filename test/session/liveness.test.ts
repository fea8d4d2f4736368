/**
 * Liveness the person can trust (issue 36, docs/recovery.md "Liveness"): agent processes against
 * the relay on real sockets leave by each way out of a process, and the relay (what the viewer and
 * `happy-session sessions` read) shows the session inactive soon after, its turn ended. Signals go
 * to the process group, as a terminal's Ctrl-C does; the README's own run line, `npx tsx
 * examples/custom-agent/index.ts`, is run as written.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { constants } from 'node:os';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fold } from 'happy-session';
import { writeAgentKey } from 'happy-session/node';
import { cli } from '../cli/helpers.js';
import { FaultProxy } from '../helpers/faultProxy.js';
import { until } from '../helpers/until.js';
import { AppClient } from '../transport/appClient.js';
import { relayWithAccount, storedOnRelay, tempDir } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const AGENT = fileURLToPath(new URL('./fixtures/livenessAgent.ts', import.meta.url));

let account: RelayAccount;
let home: { path: string; remove: () => void };
let app: AppClient;
let running: Agent | undefined;

interface Agent {
  readonly child: ChildProcess;
  readonly sessionId: string;
  stdout(): string;
  stderr(): string;
  /** The status a shell shows (`$?`): the exit code, or 128 + the signal that ended it. */
  readonly status: Promise<number>;
}

beforeEach(async () => {
  account = await relayWithAccount();
  home = tempDir('happy-liveness-');
  chmodSync(home.path, 0o700);
  writeAgentKey(home.path, { secret: account.masterSecret, token: account.token });
  app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
});
afterEach(async () => {
  const child = running?.child;
  if (child?.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
  running = undefined;
  app.close();
  await account.relay.close();
  home.remove();
});

/**
 * Starts `command` in a process group of its own, as a shell starts a foreground job, and resolves
 * once it prints its session id.
 */
async function start(
  command: string,
  args: string[],
  server = account.relay.url,
  cwd = ROOT,
): Promise<Agent> {
  const sessionLine = /session (\S+?):?\s/;
  const child = spawn(command, args, {
    cwd,
    detached: true,
    env: { ...process.env, HAPPY_SERVER_URL: server, HAPPY_HOME_DIR: home.path },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const status = new Promise<number>((resolve) =>
    child.once('exit', (code, signal) => resolve(code ?? 128 + constants.signals[signal!])),
  );
  const sessionId = await until(() => sessionLine.exec(out)?.[1] ?? child.exitCode !== null, {
    timeoutMs: 60_000,
    what: () => `the session line (stdout: ${out}, stderr: ${err})`,
  });
  if (typeof sessionId !== 'string') throw new Error(`the agent exited: ${err}`);
  running = { child, sessionId, stdout: () => out, stderr: () => err, status };
  return running;
}

const fixture = (mode: string, server?: string): Promise<Agent> =>
  start(process.execPath, ['--import', 'tsx', AGENT, mode], server);

/** Sends `signal` to the agent's whole process group, as a terminal does. */
function signalGroup(agent: Agent, signal: NodeJS.Signals): void {
  process.kill(-agent.child.pid!, signal);
}

/** Every turn of the session ended, the fixture's one `cancelled`. */
async function expectTurnsEnded(sessionId: string): Promise<void> {
  const messages = await storedOnRelay(account, sessionId, await app.keyOf(sessionId));
  const folded = fold(messages);
  const started = messages.filter((m) => m.type === 'turn-start');
  expect(started.length).toBeGreaterThan(0);
  for (const start of started) expect(folded.turn(start.turn!)?.status).toBe('cancelled');
}

/** What `happy-session sessions --json` says of the session. */
async function listedByCli(sessionId: string): Promise<{ active: boolean } | undefined> {
  const run = await cli(['sessions', '--json'], {
    env: { HAPPY_SERVER_URL: account.relay.url, HAPPY_HOME_DIR: home.path },
  });
  expect(run.code).toBe(0);
  const sessions = JSON.parse(run.out) as Array<{ id: string; active: boolean }>;
  return sessions.find((s) => s.id === sessionId);
}

/** `happy-session stop` says at once that no agent is there, not the server's "RPC method not available". */
async function expectStopSaysNotConnected(sessionId: string): Promise<void> {
  const run = await cli(['stop', sessionId], {
    env: { HAPPY_SERVER_URL: account.relay.url, HAPPY_HOME_DIR: home.path },
  });
  expect(run.code).not.toBe(0);
  expect(run.err).toMatch(/is not connected/);
  expect(run.err).not.toMatch(/RPC method not available/);
}

describe('the README run line', () => {
  it('`npx tsx examples/custom-agent/index.ts`: Ctrl-C to the group exits 130, and the session is inactive', async () => {
    const agent = await start('npx', ['tsx', 'examples/custom-agent/index.ts']);
    expect((await app.session(agent.sessionId)).active).toBe(true);

    signalGroup(agent, 'SIGINT');

    expect(await agent.status).toBe(130);
    await app.untilInactive(agent.sessionId);
    expect(await listedByCli(agent.sessionId)).toMatchObject({ active: false });
    await expectStopSaysNotConnected(agent.sessionId);
  }, 120_000);
});

describe('under `npm run`', () => {
  it('a package script running the agent: Ctrl-C to the group exits 130, session ended, turn cancelled', async () => {
    const project = tempDir('happy-liveness-npm-');
    try {
      const tsx = join(ROOT, 'node_modules', '.bin', 'tsx');
      writeFileSync(
        join(project.path, 'package.json'),
        JSON.stringify({
          name: 'liveness-npm',
          private: true,
          scripts: { agent: `${tsx} --tsconfig ${join(ROOT, 'tsconfig.json')} ${AGENT} wait` },
        }),
      );
      const agent = await start('npm', ['run', '--silent', 'agent'], account.relay.url, project.path);

      signalGroup(agent, 'SIGINT');

      expect(await agent.status).toBe(130);
      await app.untilInactive(agent.sessionId);
      await expectTurnsEnded(agent.sessionId);
    } finally {
      project.remove();
    }
  }, 120_000);
});

describe('each way out of the process ends the session and its turn', () => {
  it('SIGINT relayed by a parent (npx, npm, tsx) while the session closes is the same stop: exit 130, session ended, turn cancelled', async () => {
    // Between the agent and the relay, a proxy that refuses the agent's writes while `refusing`:
    // the stop cannot finish before the second signal comes.
    let refusing = false;
    const proxy = await new FaultProxy(account.relay.url, (r) =>
      refusing && r.method === 'POST' && r.url.includes('/messages')
        ? { kind: 'answer', status: 500, body: { error: 'busy' } }
        : { kind: 'forward' },
    ).start();
    try {
      const agent = await fixture('wait', proxy.url);
      refusing = true;
      const writes = (): number =>
        proxy.seen.filter((r) => r.method === 'POST' && r.url.includes('/messages')).length;
      const before = writes();
      signalGroup(agent, 'SIGINT');
      // While the agent is ending its session, the same signal again: tsx's launcher sends it when
      // the child has not answered its relay within 30 ms, and npm forwards what it got.
      await until(() => writes() > before, { what: 'the stop writing' });
      agent.child.kill('SIGINT');
      refusing = false;

      expect(await agent.status).toBe(130);
      await app.untilInactive(agent.sessionId);
      await expectTurnsEnded(agent.sessionId);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it.each([
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)(
    '%s: exit %i, session ended, turn cancelled',
    async (signal, status) => {
      const agent = await fixture('wait');
      signalGroup(agent, signal);

      expect(await agent.status).toBe(status);
      await app.untilInactive(agent.sessionId);
      await expectTurnsEnded(agent.sessionId);
    },
    60_000,
  );

  it.each(['throw', 'reject'])(
    'an uncaught error (%s): printed, exit 1, session ended, turn cancelled',
    async (mode) => {
      const agent = await fixture(mode);

      expect(await agent.status).toBe(1);
      expect(agent.stderr()).toMatch(/the agent broke/);
      expect(agent.stderr()).toMatch(/The session ends before the process exits 1/);
      await app.untilInactive(agent.sessionId);
      await expectTurnsEnded(agent.sessionId);
    },
    60_000,
  );

  it('a program with its own uncaughtException listener handles the error itself: the session stays live until a signal', async () => {
    const agent = await fixture('host-uncaught');
    await until(() => /host caught the agent broke/.test(agent.stdout()), { what: "the program's listener" });
    expect(agent.child.exitCode).toBeNull();
    expect((await app.session(agent.sessionId)).active).toBe(true);

    signalGroup(agent, 'SIGTERM');

    expect(await agent.status).toBe(143);
    await app.untilInactive(agent.sessionId);
    await expectTurnsEnded(agent.sessionId);
  }, 60_000);

  it('a program with its own SIGINT listener: both run, the session ends, the program decides the exit', async () => {
    const agent = await fixture('host-sigint');
    signalGroup(agent, 'SIGINT');

    expect(await agent.status).toBe(42);
    expect(agent.stdout()).toMatch(/host saw SIGINT/);
    await app.untilInactive(agent.sessionId);
    await expectTurnsEnded(agent.sessionId);
  }, 60_000);
});

describe('kill -9', () => {
  it('the relay marks the session inactive from the closed socket, for the viewer and `happy-session sessions`', async () => {
    // What the viewer reads: the `activity` ephemerals of the account's user-scoped sockets.
    const activity: Array<{ id?: string; active?: boolean }> = [];
    app.socket.on('ephemeral', (event: { type?: string; id?: string; active?: boolean }) => {
      if (event.type === 'activity') activity.push(event);
    });
    const agent = await fixture('wait');
    expect((await app.session(agent.sessionId)).active).toBe(true);

    signalGroup(agent, 'SIGKILL');

    expect(await agent.status).toBe(128 + constants.signals.SIGKILL);
    await app.untilInactive(agent.sessionId);
    await expectStopSaysNotConnected(agent.sessionId);
    await until(() => activity.some((e) => e.id === agent.sessionId && e.active === false), {
      what: 'the viewer told the session is inactive',
    });
    expect(await listedByCli(agent.sessionId)).toMatchObject({ active: false });
  }, 60_000);
});
