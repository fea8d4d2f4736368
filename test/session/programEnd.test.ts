/**
 * When the program's code ends without `session.close()` (issue 36, `beforeExit`; docs/recovery.md
 * "When the program's code ends"): real agent processes against the relay on real sockets. A
 * program that waits on nothing exits by itself, 0, its session ended and its turn cancelled,
 * nothing it wrote lost; a program that waits on the person (a prompt loop, a permission request,
 * `session.closed`, a subscription) stays until what it waits for comes, then ends the same way.
 */
import { chmodSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fold } from 'happy-session';
import type { SessionMessage } from 'happy-session';
import type { RecordKey } from 'happy-session/crypto';
import { writeAgentKey } from 'happy-session/node';
import { startFixture } from '../helpers/fixtureProcess.js';
import type { FixtureProcess } from '../helpers/fixtureProcess.js';
import { FaultProxy } from '../helpers/faultProxy.js';
import { until } from '../helpers/until.js';
import { AppClient } from '../transport/appClient.js';
import { relayWithAccount, storedOnRelay, tempDir } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';

const AGENT = fileURLToPath(new URL('./fixtures/endingAgent.ts', import.meta.url));
/**
 * Longer than the SDK's look at a process whose code has ended, so that a process that would
 * wrongly leave has left before the test acts (a wait, not a speed check).
 */
const SETTLE_MS = 1_500;

let account: RelayAccount;
let home: { path: string; remove: () => void };
let app: AppClient;
let running: FixtureProcess | undefined;

beforeEach(async () => {
  account = await relayWithAccount();
  home = tempDir('happy-program-end-');
  chmodSync(home.path, 0o700);
  writeAgentKey(home.path, { secret: account.masterSecret, token: account.token });
  app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
});
afterEach(async () => {
  const child = running?.child;
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  running = undefined;
  app.close();
  await account.relay.close();
  home.remove();
});

interface Agent {
  readonly process: FixtureProcess;
  readonly sessionId: string;
  readonly key: RecordKey;
}

async function agent(mode: string, server = account.relay.url): Promise<Agent> {
  running = startFixture(AGENT, [mode], {
    HAPPY_SERVER_URL: server,
    HAPPY_HOME_DIR: home.path,
  });
  const sessionId = (await running.reach(/session (\S+)\n/))[1]!;
  return { process: running, sessionId, key: await app.keyOf(sessionId) };
}

const stored = (a: Agent): Promise<SessionMessage[]> => storedOnRelay(account, a.sessionId, a.key);

async function prompt(a: Agent, text: string): Promise<void> {
  await app.send(
    a.sessionId,
    { role: 'user', content: { type: 'text', text }, meta: { sentFrom: 'web' } },
    a.key,
  );
}

/** Still running, and the session still live: what a waiting program must be. */
async function expectStillThere(a: Agent): Promise<void> {
  await sleep(SETTLE_MS);
  expect(a.process.child.exitCode).toBeNull();
  expect((await app.session(a.sessionId)).active).toBe(true);
}

function turnStatuses(messages: SessionMessage[]): (string | undefined)[] {
  const folded = fold(messages);
  return messages.filter((m) => m.type === 'turn-start').map((m) => folded.turn(m.turn!)?.status);
}

describe('a program whose code ends without close()', () => {
  it('waiting on nothing: exits 0 by itself; the session is ended and its open turn cancelled', async () => {
    const a = await agent('end');

    expect(await a.process.exited).toBe(0);
    await app.untilInactive(a.sessionId);
    expect(turnStatuses(await stored(a))).toEqual(['cancelled']);
    const text = (await stored(a)).find((m) => m.type === 'text');
    expect(text).toMatchObject({ text: 'working' });
  }, 60_000);

  it('with records not yet stored: they are stored before it exits 0', async () => {
    const a = await agent('unflushed');

    expect(await a.process.exited).toBe(0);
    await app.untilInactive(a.sessionId);
    const messages = await stored(a);
    expect(messages.find((m) => m.type === 'text')).toMatchObject({ text: 'last words' });
    expect(turnStatuses(messages)).toEqual(['completed']);
  }, 60_000);

  it('with records the server does not store yet: it stays, retrying, until they are stored; then exits 0', async () => {
    // Between the agent and the relay, a proxy that answers every write of a message 500 while `refusing`.
    let refusing = true;
    const proxy = await new FaultProxy(account.relay.url, (r) =>
      refusing && r.method === 'POST' && r.url.includes('/messages')
        ? { kind: 'answer', status: 500, body: { error: 'busy' } }
        : { kind: 'forward' },
    ).start();
    try {
      const a = await agent('unflushed', proxy.url);
      await until(() => /append failed, retrying/.test(a.process.err()), { what: 'a refused write' });
      await expectStillThere(a);

      refusing = false;

      expect(await a.process.exited).toBe(0);
      await app.untilInactive(a.sessionId);
      expect((await stored(a)).find((m) => m.type === 'text')).toMatchObject({ text: 'last words' });
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('with records the server refuses for good (HTTP 400): it exits 1 and says so', async () => {
    const proxy = await new FaultProxy(account.relay.url, (r) =>
      r.method === 'POST' && r.url.includes('/messages')
        ? { kind: 'answer', status: 400, body: { error: 'refused' } }
        : { kind: 'forward' },
    ).start();
    try {
      const a = await agent('unflushed', proxy.url);

      expect(await a.process.exited).toBe(1);
      expect(a.process.err()).toMatch(/the program's code ended without session\.close\(\)/);
      expect(a.process.err()).toMatch(/the session closed with records not stored/);
      expect(a.process.err()).not.toMatch(/uncaught/i);
      await app.untilInactive(a.sessionId);
    } finally {
      await proxy.close();
    }
  }, 60_000);

  it('with `shutdownSignals: false`: the session is left to the program; the process still exits, and the relay sees its socket close', async () => {
    const a = await agent('no-shutdown');

    expect(await a.process.exited).toBe(0);
    await app.untilInactive(a.sessionId);
    // Nobody ended the turn: a successor does (docs/recovery.md).
    expect(turnStatuses(await stored(a))).toEqual(['open']);
  }, 60_000);
});

describe('a program waiting on the person stays until what it waits for comes', () => {
  it('a `for await` loop over prompts(): the prompt is answered, then the program ends and exits 0', async () => {
    const a = await agent('prompts');
    await expectStillThere(a);

    await prompt(a, 'hello');

    await a.process.reach(/answered hello/);
    expect(await a.process.exited).toBe(0);
    await app.untilInactive(a.sessionId);
    expect(turnStatuses(await stored(a))).toEqual(['completed']);
  }, 60_000);

  it('a permission request: the tool runs once allowed, then the program exits 0', async () => {
    const a = await agent('request');
    await a.process.reach(/waiting/);
    await expectStillThere(a);

    const request = (await stored(a)).find((m) => m.type === 'permission-request')!;
    await app.call(a.sessionId, 'permission', { id: request.callId, approved: true }, a.key);

    await a.process.reach(/status done/);
    expect(a.process.out()).toMatch(/ran/);
    expect(await a.process.exited).toBe(0);
    await app.untilInactive(a.sessionId);
    expect(turnStatuses(await stored(a))).toEqual(['completed']);
  }, 60_000);

  it('a question: stays until it is answered, then exits 0', async () => {
    const a = await agent('question');
    const questionId = (await a.process.reach(/asked (\S+)\n/))[1]!;
    await expectStillThere(a);

    await app.call(
      a.sessionId,
      'communication',
      { id: questionId, kind: 'form', status: 'answered', answers: { db: { options: ['SQLite'] } } },
      a.key,
    );

    await a.process.reach(/answer SQLite/);
    expect(await a.process.exited).toBe(0);
    await app.untilInactive(a.sessionId);
  }, 60_000);

  it('an RPC method of its own: the program serves it until the session is stopped', async () => {
    const a = await agent('rpc');
    await expectStillThere(a);

    expect(await app.call(a.sessionId, 'ping', {}, a.key)).toEqual({ pong: true });
    expect(a.process.out()).toMatch(/pinged/);
    await app.call(a.sessionId, 'killSession', {}, a.key);

    expect(await a.process.exited).toBe(0);
    await app.untilInactive(a.sessionId);
  }, 60_000);

  it('`await session.closed`: stays until the session is stopped from the app, then exits 0', async () => {
    const a = await agent('closed');
    await expectStillThere(a);

    await app.call(a.sessionId, 'killSession', {}, a.key);

    await a.process.reach(/closed/);
    expect(await a.process.exited).toBe(0);
    await app.untilInactive(a.sessionId);
  }, 60_000);

  it('a subscription to userMessages$: stays until it unsubscribes, then ends the session and exits 0', async () => {
    const a = await agent('subscribed');
    await expectStillThere(a);

    await prompt(a, 'ping');

    await a.process.reach(/got ping/);
    expect(await a.process.exited).toBe(0);
    await app.untilInactive(a.sessionId);
  }, 60_000);
});
