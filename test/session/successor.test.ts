/**
 * A successor takes over what a killed agent left (issue 36, docs/recovery.md): real agent
 * processes (test/session/fixtures/dyingAgent.ts) against the relay, killed with SIGKILL; the
 * person answers while no agent runs; a new process opens the session by id.
 */
import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fold } from 'happy-session';
import type { SessionMessage } from 'happy-session';
import { Account, connect, writeAgentKey } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import type { UserSession } from 'happy-session/user';
import { relayWithAccount, tempDir } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';
import { startFixture } from '../helpers/fixtureProcess.js';
import { until } from '../helpers/until.js';

const AGENT = fileURLToPath(new URL('./fixtures/dyingAgent.ts', import.meta.url));

let account: RelayAccount;
let home: { path: string; remove: () => void };
let children: ChildProcess[] = [];
let opened: Array<{ close(): Promise<void> }> = [];

beforeEach(async () => {
  account = await relayWithAccount();
  home = tempDir('happy-successor-');
  chmodSync(home.path, 0o700);
  writeAgentKey(home.path, { secret: account.masterSecret, token: account.token });
});
afterEach(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children = [];
  for (const o of opened.reverse()) await o.close().catch(() => undefined);
  opened = [];
  await account.relay.close();
  home.remove();
});

/** Starts the fixture in MODE and waits for the line matching `reached`; returns its captures. */
async function startAgent(
  args: string[],
  reached: RegExp,
): Promise<{ child: ChildProcess; sessionId: string; match: RegExpExecArray }> {
  const agent = startFixture(AGENT, args, {
    HAPPY_SERVER_URL: account.relay.url,
    HAPPY_HOME_DIR: home.path,
    RUNS_FILE: join(home.path, 'runs'),
  });
  children.push(agent.child);
  const match = await agent.reach(reached);
  return { child: agent.child, sessionId: /session (\S+)/.exec(agent.out())![1]!, match };
}

/** SIGKILL, and wait until the process is gone. */
async function kill(child: ChildProcess): Promise<void> {
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

/** The successor: this process opens the session by id, with the same happy home (its record key). */
async function successor(
  sessionId: string,
  permissions?: NonNullable<Parameters<typeof connect>[0]>['permissions'],
): Promise<Session> {
  const session = await connect({
    ...(permissions !== undefined ? { permissions } : {}),
    server: account.relay.url,
    credentials: account.credentials,
    homeDir: home.path,
    sessionId,
    shutdownSignals: false,
    archiveOnClose: false,
  });
  opened.push(session);
  return session;
}

async function person(sessionId: string): Promise<UserSession> {
  const user = await Account.open({ server: account.relay.url, credentials: account.credentials });
  opened.push(user);
  const session = await user.session(sessionId);
  opened.push(session);
  return session;
}

async function stored(session: Session): Promise<SessionMessage[]> {
  await session.writer.flush();
  return session.reader.messages();
}

const runs = (): string[] =>
  existsSync(join(home.path, 'runs')) ? readFileSync(join(home.path, 'runs'), 'utf8').trim().split('\n') : [];

describe('killed while a permission request waits', () => {
  it('the old turn ends; the allow given meanwhile is offered; a resumed call runs once, and only on it; a new call with the same input asks', async () => {
    const agent = await startAgent(['ask'], /call (\S+)/);
    const callId = agent.match[1]!;
    await kill(agent.child);

    // The person allows it while no agent runs: the record is stored, the RPC reaches nobody.
    const user = await person(agent.sessionId);
    const sent = await user.answer(callId, 'allow');
    expect(sent.status).toBe('sent');
    if (sent.status !== 'sent') return;
    await sent.recorded;
    expect(await sent.rpc).toMatchObject({ ok: false });

    const next = await successor(agent.sessionId);
    const [interrupted, ...others] = next.interrupted.calls;
    expect(others).toEqual([]);
    expect(interrupted).toMatchObject({
      callId,
      toolName: 'Bash',
      args: { command: 'make deploy' },
      state: 'asking',
      answer: { decision: { outcome: 'allow', source: 'user', via: 'stream' } },
    });
    const afterTakeOver = await stored(next);
    const oldTurn = interrupted!.turn;
    expect(fold(afterTakeOver).turn(oldTurn)).toMatchObject({ status: 'cancelled' });
    expect(afterTakeOver.find((m) => m.type === 'turn-end' && m.turn === oldTurn)).toMatchObject({
      reason: 'The agent restarted.',
    });
    expect(runs()).toEqual([]);

    // Resumed: it runs at once on that allow, once.
    const turn = next.turn();
    const resumed = next.resume(interrupted!, turn);
    expect(
      await resumed.run(() =>
        writeFileSync(join(home.path, 'runs'), `ran in ${process.pid}\n`, { flag: 'a' }),
      ),
    ).toMatchObject({ status: 'done', decision: { outcome: 'allow', via: 'stream' } });
    expect(runs()).toEqual([`ran in ${process.pid}`]);
    // The same interrupted call resumed again asks: the allow was for one run.
    const again = next.resume(interrupted!, turn);
    let againRan = false;
    const againRun = again.run(() => void (againRan = true));
    // A new call with the same input asks too: an old answer never allows it.
    const fresh = turn.toolCall({ toolName: 'Bash', title: 'Deploy', args: { command: 'make deploy' } });
    let freshRan = false;
    const freshRun = fresh.run(() => void (freshRan = true));
    await until(() => next.gate!.pendingCallIds.length === 2);
    expect(next.gate!.pendingCallIds).toEqual([again.callId, fresh.callId]);
    turn.end();
    expect(await againRun).toMatchObject({ status: 'cancelled' });
    expect(await freshRun).toMatchObject({ status: 'cancelled' });
    expect([againRan, freshRan]).toEqual([false, false]);

    const messages = await stored(next);
    expect(messages.find((m) => m.type === 'tool-call-start' && m.callId === resumed.callId)).toMatchObject({
      resumes: callId,
    });
    // The stream says once that the allow was applied, in the old call, before its end.
    const applied = messages.filter(
      (m) => m.type === 'service' && m.text.startsWith('Permission answer applied: '),
    );
    expect(applied).toMatchObject([{ parentId: callId }]);
  });

  it('a successor whose deny rules refuse the call does not run it on the allow given meanwhile', async () => {
    const agent = await startAgent(['ask'], /call (\S+)/);
    const callId = agent.match[1]!;
    await kill(agent.child);
    const user = await person(agent.sessionId);
    const sent = await user.answer(callId, 'allow');
    if (sent.status !== 'sent') throw new Error(`not sent: ${sent.status}`);
    await sent.recorded;

    const next = await successor(agent.sessionId, { rules: { deny: ['Bash(make:*)'] } });
    const [interrupted] = next.interrupted.calls;
    expect(interrupted).toMatchObject({ callId, answer: { decision: { outcome: 'allow' } } });
    const turn = next.turn();
    const resumed = next.resume(interrupted!, turn);
    expect(
      await resumed.run(() =>
        writeFileSync(join(home.path, 'runs'), `ran in ${process.pid}\n`, { flag: 'a' }),
      ),
    ).toMatchObject({ status: 'denied', decision: { outcome: 'deny', rule: 'Bash(make:*)' } });
    turn.end();
    expect(runs()).toEqual([]);
    const messages = await stored(next);
    expect(
      messages.some((m) => m.type === 'service' && m.text.startsWith('Permission answer carried over: ')),
    ).toBe(false);
  });

  it('with no answer meanwhile, the call is offered without one and a resume asks again', async () => {
    const agent = await startAgent(['ask'], /call (\S+)/);
    await kill(agent.child);
    const next = await successor(agent.sessionId);
    const [interrupted] = next.interrupted.calls;
    expect(interrupted).toMatchObject({ state: 'asking' });
    expect(interrupted!.answer).toBeUndefined();
    // A late answer to the old request is refused with how it ended, and runs nothing.
    const user = await person(agent.sessionId);
    const late = await user.answer(interrupted!.request!, 'allow');
    expect(late.status).toBe('settled');
    expect(next.gate!.handleRpc({ callId: interrupted!.callId, optionId: 'allow-once' })).toMatchObject({
      status: 'already_resolved',
      decision: { outcome: 'cancelled', source: 'shutdown' },
    });
    const turn = next.turn();
    const resumed = next.resume(interrupted!, turn);
    void resumed.run(() => undefined);
    await until(() => next.gate!.pendingCallIds.includes(resumed.callId));
    turn.end();
  });
});

describe('killed while a question waits', () => {
  it('the answer given meanwhile reaches the successor once', async () => {
    const agent = await startAgent(['question'], /question (\S+)/);
    const questionId = agent.match[1]!;
    await kill(agent.child);
    const user = await person(agent.sessionId);
    expect(await user.answerQuestion(questionId, { db: { options: ['SQLite'] } })).toMatchObject({
      status: 'recorded',
    });
    const next = await successor(agent.sessionId);
    expect(next.interrupted.questions).toMatchObject([
      { question: { questionId }, result: { status: 'answered', answers: { db: { options: ['SQLite'] } } } },
    ]);
    // One live writer at a time (docs/writer-lease.md): the next process comes once this one closed.
    await next.close();
    const again = await successor(agent.sessionId);
    expect(again.interrupted.questions).toEqual([]);
  });
});

describe('a prompt sent while no agent ran', () => {
  it('reaches the successor once; the prompt the dead process took is not delivered again', async () => {
    const agent = await startAgent(['prompts'], /session (\S+)/);
    const user = await person(agent.sessionId);
    await user.send('first');
    await until(async () => (await user.reader.messages()).some((m) => m.type === 'prompt-taken'), {
      timeoutMs: 30_000,
    });
    await kill(agent.child);
    await user.send('second');

    const next = await successor(agent.sessionId);
    const taken: string[] = [];
    const controller = new AbortController();
    const reading = (async () => {
      for await (const prompt of next.prompts({ signal: controller.signal })) {
        taken.push(prompt.text);
        await next.writer.flush();
      }
    })();
    await until(() => taken.length === 1);
    controller.abort();
    await reading;
    expect(taken).toEqual(['second']);

    // A later process starts after 'second', which this one took; it comes once this one closed.
    await next.close();
    const later = await successor(agent.sessionId);
    const afterwards: string[] = [];
    const stop = new AbortController();
    const reading2 = (async () => {
      for await (const prompt of later.prompts({ signal: stop.signal })) afterwards.push(prompt.text);
    })();
    await user.send('third');
    await until(() => afterwards.length === 1);
    stop.abort();
    await reading2;
    expect(afterwards).toEqual(['third']);
  });
});

describe('killed mid-upload', () => {
  it('the successor ends the turn, and no message references a partial blob', async () => {
    const file = join(home.path, 'big.bin');
    writeFileSync(file, randomBytes(6 * 1024 * 1024));
    const agent = await startAgent(['upload', '-', file], /uploading/);
    await kill(agent.child);
    const next = await successor(agent.sessionId);
    const messages = await stored(next);
    expect(messages.filter((m) => m.type === 'file' || m.type === 'photo' || m.type === 'video')).toEqual([]);
    const turns = fold(messages).timeline.filter((n) => n.kind === 'turn');
    expect(turns).toMatchObject([{ status: 'cancelled' }]);
    expect(next.interrupted.calls).toEqual([]);
  });
});
