/**
 * One live writer per session (issue 36, docs/writer-lease.md): real agent processes
 * (test/session/fixtures/leaseHolder.ts) with real sockets on the embedded relay. A second live
 * process is refused with `session.in_use`, or takes over explicitly and the first is told and stops;
 * the RPC reaches the holder; a holder killed with SIGKILL is succeeded at once.
 */
import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSdkError } from 'happy-session';
import type { SessionMessage } from 'happy-session';
import { Account, connect, writeAgentKey } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { AppClient } from '../transport/appClient.js';
import { relayWithAccount, tempDir } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';
import { startFixture } from '../helpers/fixtureProcess.js';
import type { FixtureProcess } from '../helpers/fixtureProcess.js';

const HOLDER = fileURLToPath(new URL('./fixtures/leaseHolder.ts', import.meta.url));

let account: RelayAccount;
let home: { path: string; remove: () => void };
let children: ChildProcess[] = [];
let opened: Array<{ close(): unknown }> = [];

beforeEach(async () => {
  account = await relayWithAccount();
  home = tempDir('happy-lease-');
  chmodSync(home.path, 0o700);
  writeAgentKey(home.path, { secret: account.masterSecret, token: account.token });
});
afterEach(async () => {
  for (const child of children) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGCONT');
    child.kill('SIGKILL');
  }
  children = [];
  for (const o of opened.reverse()) await Promise.resolve(o.close()).catch(() => undefined);
  opened = [];
  await account.relay.close();
  home.remove();
});

type Holder = FixtureProcess;

function startHolder(args: string[]): Holder {
  const holder = startFixture(HOLDER, args, {
    HAPPY_SERVER_URL: account.relay.url,
    HAPPY_HOME_DIR: home.path,
    RUNS_FILE: join(home.path, 'runs'),
  });
  children.push(holder.child);
  return holder;
}

const sessionOf = async (holder: Holder): Promise<string> => (await holder.reach(/session (\S+)/))[1]!;

async function app(): Promise<AppClient> {
  const client = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
  opened.push(client);
  return client;
}

/** The RPC `whoami` as the app calls it: which process answered. */
async function whoami(client: AppClient, sessionId: string): Promise<number> {
  const answer = (await client.call(sessionId, 'whoami', {}, await client.keyOf(sessionId))) as {
    pid: number;
  };
  return answer.pid;
}

async function open(sessionId: string, options: { takeOver?: boolean } = {}): Promise<Session> {
  const session = await connect({
    server: account.relay.url,
    credentials: account.credentials,
    homeDir: home.path,
    sessionId,
    shutdownSignals: false,
    archiveOnClose: false,
    ...options,
  });
  opened.push(session);
  return session;
}

async function stored(session: Session): Promise<SessionMessage[]> {
  await session.writer.flush();
  return session.reader.messages();
}

const runs = (): string[] =>
  existsSync(join(home.path, 'runs')) ? readFileSync(join(home.path, 'runs'), 'utf8').trim().split('\n') : [];

describe('two live processes on one session', () => {
  it('the second is refused with session.in_use naming the holder, and the first goes on untouched', async () => {
    const first = startHolder(['-']);
    const sessionId = await sessionOf(first);
    const callId = (await first.reach(/asking (\S+)/))[1]!;

    // Another process: refused, told which process on which machine holds it, and how to take over.
    const second = startHolder([sessionId]);
    const refused = await second.reach(/refused (\S+) (.*)/);
    expect(refused[1]).toBe('session.in_use');
    expect(JSON.parse(refused[2]!)).toMatchObject({ sessionId, host: hostname(), pid: first.child.pid });
    expect(await second.exited).toBe(3);

    // This process too, with the hint.
    const error = await open(sessionId).catch((e: unknown) => e);
    expect(isSdkError(error, 'session.in_use')).toBe(true);
    expect(String((error as Error).message)).toContain('takeOver: true');

    // The first process's live request was not cancelled, and it still answers its RPC.
    const client = await app();
    expect(await whoami(client, sessionId)).toBe(first.child.pid);
    const user = await Account.open({ server: account.relay.url, credentials: account.credentials });
    opened.push(user);
    const viewer = await user.session(sessionId);
    opened.push(viewer);
    expect((await viewer.pending()).map((r) => r.callId)).toEqual([callId]);

    // Positive control: the live holder's own request is answered by the person, and its tool runs.
    const sent = await viewer.answer(callId, 'allow');
    expect(sent).toMatchObject({ status: 'sent' });
    await first.reach(/call done/);
    expect(runs()).toEqual([`ran in ${first.child.pid}`]);
  });

  it('takeOver: the RPC reaches the new holder at once, the first is told, its waits and writes settle session.taken_over, and it ends', async () => {
    const first = startHolder(['-']);
    const sessionId = await sessionOf(first);
    const callId = (await first.reach(/asking (\S+)/))[1]!;
    const client = await app();
    expect(await whoami(client, sessionId)).toBe(first.child.pid);

    // Frozen, the first process still holds its registrations on the relay: routing alone decides.
    first.child.kill('SIGSTOP');
    const second = startHolder([sessionId, 'takeover']);
    expect(await sessionOf(second)).toBe(sessionId);
    await second.reach(/asking (\S+)/);
    expect(await whoami(client, sessionId)).toBe(second.child.pid);

    first.child.kill('SIGCONT');
    await first.reach(/closed/);
    expect(first.out()).toContain('call session.taken_over');
    expect(first.out()).toContain('write session.taken_over');
    expect(first.out()).toContain('append session.taken_over');
    expect(first.out()).toContain('told session.taken_over');
    expect(await first.exited).toBe(0);

    // The new holder ended what the first left open, once; the first wrote nothing after it.
    const viewer = await open(sessionId, { takeOver: true });
    const messages = await stored(viewer);
    expect(messages.filter((m) => m.type === 'tool-call-end' && m.callId === callId)).toHaveLength(1);
    expect(messages.some((m) => m.type === 'text' && m.text === 'written after the take-over')).toBe(false);
    expect(runs()).toEqual([]);
  });
});

describe('a holder killed with SIGKILL', () => {
  it('is succeeded at once, without takeOver', async () => {
    const first = startHolder(['-']);
    const sessionId = await sessionOf(first);
    await first.reach(/asking (\S+)/);
    // Positive control: alive, it holds the session.
    expect(isSdkError(await open(sessionId).catch((e: unknown) => e), 'session.in_use')).toBe(true);

    first.child.kill('SIGKILL');
    await first.exited;
    const next = await open(sessionId);
    expect(next.interrupted.calls).toHaveLength(1);
    const client = await app();
    next.rpc.register('whoami', () => ({ pid: process.pid }));
    expect(await whoami(client, sessionId)).toBe(process.pid);
  });
});
