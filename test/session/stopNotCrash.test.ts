/**
 * A stop is not a crash (issue 26): the README's example shape runs as its own process against the
 * relay (test/session/fixtures/readmeAgent.ts). It writes after `run()` returns and after `step()`
 * without guarding on `turn.ended`. Ctrl-C (SIGINT) while a permission request waits or while the
 * tool runs ends the process with 130 and no stack trace, and the relay holds the cancelled call,
 * the turn's `cancelled` end and an ended session; the app's stop instead lets it go on to the next
 * prompt.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fold } from 'happy-session';
import type { FoldedCall, SessionMessage } from 'happy-session';
import type { RecordKey } from 'happy-session/crypto';
import { writeAgentKey } from 'happy-session/node';
import { AppClient } from '../transport/appClient.js';
import { relayWithAccount, storedOnRelay, tempDir } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const AGENT = fileURLToPath(new URL('./fixtures/readmeAgent.ts', import.meta.url));

let account: RelayAccount;
let home: { path: string; remove: () => void };
let app: AppClient;
let agent: Agent | undefined;

interface Agent {
  readonly child: ChildProcess;
  readonly sessionId: string;
  readonly key: RecordKey;
  stdout(): string;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

beforeEach(async () => {
  account = await relayWithAccount();
  home = tempDir('happy-stop-home-');
  chmodSync(home.path, 0o700);
  writeAgentKey(home.path, { secret: account.masterSecret, token: account.token });
  app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
});
afterEach(async () => {
  const child = agent?.child;
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  agent = undefined;
  app.close();
  await account.relay.close();
  home.remove();
});

/** Starts the fixture as one Node process (no npx in between to take the signal). */
async function startAgent(): Promise<Agent> {
  const child = spawn(process.execPath, ['--import', 'tsx', AGENT], {
    cwd: ROOT,
    env: { ...process.env, HAPPY_SERVER_URL: account.relay.url, HAPPY_HOME_DIR: home.path },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const sessionId = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const match = /session (\S+)\n/.exec(out);
      if (match) resolve(match[1]!);
    });
    void exited.then(({ code }) => reject(new Error(`the agent exited with ${code}: ${err}`)));
  });
  const key = await app.keyOf(sessionId);
  return { child, sessionId, key, stdout: () => out, stderr: () => err, exited };
}

async function prompt(a: Agent, text: string): Promise<void> {
  await app.send(
    a.sessionId,
    { role: 'user', content: { type: 'text', text }, meta: { sentFrom: 'web' } },
    a.key,
  );
}

/** Polls (the other process writes) until `check` holds. */
async function until(check: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await check())) await new Promise((resolve) => setTimeout(resolve, 50));
}

const stored = (a: Agent): Promise<SessionMessage[]> => storedOnRelay(account, a.sessionId, a.key);

async function requestsWaiting(a: Agent): Promise<number> {
  const messages = await stored(a);
  return messages.filter((m) => m.type === 'permission-request').length;
}

/** The pending requests of agentState, as today's app reads them. */
async function pendingInAgentState(a: Agent): Promise<string[]> {
  const row = await app.session(a.sessionId);
  const state = (await app.decrypt(row.agentState, a.key)) as { requests?: Record<string, unknown> };
  return Object.keys(state.requests ?? {});
}

/** No line of stderr is a stack frame or Node's report of an uncaught error: every line is the logger's. */
function expectNoStackTrace(stderr: string): void {
  const lines = stderr.split('\n').filter((line) => line.length > 0);
  for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  expect(stderr).not.toMatch(/^\s+at /m);
}

/** The first turn: its Bash call cancelled, its end `cancelled`. */
function expectCancelledTurn(messages: SessionMessage[]): string {
  const started = messages.find((m) => m.type === 'turn-start')!;
  const turn = fold(messages).turn(started.turn!)!;
  expect(turn.status).toBe('cancelled');
  const call = turn.children.find((c): c is FoldedCall => c.kind === 'call')!;
  expect(call.start.toolName).toBe('Bash');
  expect(call.end?.error).toBe('cancelled');
  const own = messages.filter((m) => 'turn' in m && m.turn === started.turn);
  expect(fold(own).pendingPermissions).toEqual([]);
  for (const start of own.filter((m) => m.type === 'tool-call-start'))
    expect(own.filter((m) => m.type === 'tool-call-end' && m.callId === start.callId)).toHaveLength(1);
  return started.turn!;
}

describe('the README example shape as a process', () => {
  it('SIGINT while a permission request waits: exit 130, no stack trace; call and turn cancelled, session ended, no pending request', async () => {
    agent = await startAgent();
    const a = agent;
    await prompt(a, 'clean up the build');
    await until(async () => (await requestsWaiting(a)) === 1);

    a.child.kill('SIGINT');

    expect(await a.exited).toEqual({ code: 130, signal: null });
    expectNoStackTrace(a.stderr());
    const messages = await stored(a);
    expectCancelledTurn(messages);
    expect(messages.at(-1)).toMatchObject({ type: 'turn-end', status: 'cancelled' });
    // Written after run() returned and after the stop: not appended.
    expect(messages.some((m) => m.type === 'text' && m.text.startsWith('rm:'))).toBe(false);
    // One logger line says so, however many writes were left out.
    expect(
      a.stderr().match(/the turn was stopped: what is still written to it is not appended/g),
    ).toHaveLength(1);
    expect(await pendingInAgentState(a)).toEqual([]);
    expect((await app.session(a.sessionId)).active).toBe(false);
  }, 120_000);

  it('SIGINT while the tool runs: exit 130 without waiting for the tool, no stack trace; call and turn cancelled, session ended', async () => {
    agent = await startAgent();
    const a = agent;
    await prompt(a, 'clean up the build');
    await until(async () => (await requestsWaiting(a)) === 1);
    const request = (await stored(a)).find((m) => m.type === 'permission-request')!;
    await app.call(
      a.sessionId,
      'permission',
      { callId: request.type === 'permission-request' && request.callId, optionId: 'allow-once' },
      a.key,
    );
    await until(() => a.stdout().includes('tool running: rm -rf dist'));

    a.child.kill('SIGINT');

    expect(await a.exited).toEqual({ code: 130, signal: null });
    expectNoStackTrace(a.stderr());
    const messages = await stored(a);
    expectCancelledTurn(messages);
    expect(messages.at(-1)).toMatchObject({ type: 'turn-end', status: 'cancelled' });
    expect(await pendingInAgentState(a)).toEqual([]);
    expect((await app.session(a.sessionId)).active).toBe(false);
  }, 120_000);

  it("the app's stop while a permission request waits: the turn ends cancelled and the agent goes on to the next prompt", async () => {
    agent = await startAgent();
    const a = agent;
    await prompt(a, 'clean up the build');
    await until(async () => (await requestsWaiting(a)) === 1);

    await app.call(a.sessionId, 'abort', { reason: 'stop' }, a.key);
    await until(() => a.stdout().includes('turn done'));
    await prompt(a, 'and again');
    await until(async () => (await requestsWaiting(a)) === 2);

    const messages = await stored(a);
    const first = expectCancelledTurn(messages);
    const turnStarts = messages.filter((m) => m.type === 'turn-start');
    expect(turnStarts).toHaveLength(2);
    expect(turnStarts[0]!.turn).toBe(first);
    // The stop ended the turn: what the program wrote to it after run() returned (its texts, the
    // step, its own end) appended nothing and threw nothing; the agent went on to the next prompt.
    expect(messages.some((m) => m.type === 'text' && m.turn === first && m.text === 'rm: cancelled')).toBe(
      false,
    );
    expect(
      messages.some((m) => m.type === 'tool-call-start' && m.turn === first && m.title === 'Build'),
    ).toBe(false);
    expect(messages.filter((m) => m.type === 'turn-end')).toEqual([
      expect.objectContaining({ turn: first, status: 'cancelled' }),
    ]);

    a.child.kill('SIGINT');
    expect(await a.exited).toEqual({ code: 130, signal: null });
    expectNoStackTrace(a.stderr());
    expect(await pendingInAgentState(a)).toEqual([]);
  }, 120_000);
});
