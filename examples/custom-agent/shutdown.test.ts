/**
 * Graceful shutdown (issue 13): the example agent runs as its own process against the relay, with
 * an agent.key in its HAPPY_HOME_DIR; the app asks it to run a command, and while the permission
 * request waits for the user, the process gets SIGTERM. connect() ends the session on the way out:
 * the stream read back holds a closed turn and a cancelled request, and agentState says cancelled.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { fold } from 'happy-session';
import type { FoldedCall } from 'happy-session';
import type { RecordKey } from 'happy-session/crypto';
import { writeAgentKey } from 'happy-session/node';
import { RELAYED_SIGNAL_WINDOW_MS } from 'happy-session/internal';
import { FaultProxy } from '../../test/helpers/faultProxy.js';
import { AppClient } from '../../test/transport/appClient.js';
import { relayWithAccount, storedOnRelay, tempDir } from '../../test/transport/helpers.js';
import type { RelayAccount } from '../../test/transport/helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const AGENT = fileURLToPath(new URL('./index.ts', import.meta.url));

let account: RelayAccount;
let home: { path: string; remove: () => void };
let app: AppClient;
let agent: ChildProcess | undefined;

beforeEach(async () => {
  account = await relayWithAccount();
  home = tempDir('happy-shutdown-home-');
  chmodSync(home.path, 0o700);
  writeAgentKey(home.path, { secret: account.masterSecret, token: account.token });
  app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
});
afterEach(async () => {
  if (agent && agent.exitCode === null && agent.signalCode === null) agent.kill('SIGKILL');
  app.close();
  await account.relay.close();
  home.remove();
});

/**
 * Starts the example as one Node process running it through tsx (`npx tsx` would put npx and a tsx
 * parent between the signal and the agent); resolves with its session id.
 */
function startAgent(server = account.relay.url): Promise<string> {
  // Unsandboxed, so that a command asks (sandboxed, it would run unasked: sandboxed.test.ts).
  agent = spawn(process.execPath, ['--import', 'tsx', AGENT, '--no-sandbox'], {
    cwd: ROOT,
    env: { ...process.env, HAPPY_SERVER_URL: server, HAPPY_HOME_DIR: home.path },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  agent.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return new Promise((resolve, reject) => {
    agent!.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /session (\S+):/.exec(out);
      if (match) resolve(match[1]!);
    });
    agent!.once('exit', (code) => reject(new Error(`the agent exited with ${code}: ${err}`)));
  });
}

function exited(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
}

/** Sends a prompt that makes the agent ask to run a command, and waits until the request is stored. */
async function promptForPermission(sessionId: string, key: RecordKey): Promise<void> {
  await app.send(
    sessionId,
    { role: 'user', content: { type: 'text', text: 'run echo never-approved' }, meta: { sentFrom: 'web' } },
    key,
  );
  for (;;) {
    const messages = await storedOnRelay(account, sessionId, key);
    if (messages.some((m) => m.type === 'permission-request')) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

it('SIGTERM while a permission request waits: the turn ends cancelled, the request is cancelled, the session ends', async () => {
  const sessionId = await startAgent();
  const key = await app.keyOf(sessionId);
  await promptForPermission(sessionId, key);

  agent!.kill('SIGTERM');
  // Closed, then ended with the conventional status of SIGTERM (128 + 15).
  expect(await exited(agent!)).toEqual({ code: 143, signal: null });
  const messages = await storedOnRelay(account, sessionId, key);
  const folded = fold(messages);
  expect(folded.pendingPermissions).toEqual([]);
  // The app's prompt is read back too (a user message outside any turn); the agent's turn follows it.
  const started = messages.find((m) => m.type === 'turn-start')!;
  const turn = folded.turn(started.turn!)!;
  expect(turn.status).toBe('cancelled');
  const call = turn.children.find((c): c is FoldedCall => c.kind === 'call')!;
  expect(call.start.toolName).toBe('Bash');
  expect(call.permission?.request.callId).toBe(call.callId);
  expect(call.permission?.response).toBeUndefined();
  expect(call.end?.error).toBe('cancelled');
  expect(messages.at(-1)).toMatchObject({ type: 'turn-end', status: 'cancelled' });
  const row = await app.session(sessionId);
  const agentState = (await app.decrypt(row.agentState, key)) as {
    requests?: Record<string, unknown>;
    completedRequests?: Record<string, { status?: string }>;
  };
  expect(Object.keys(agentState.requests ?? {})).toEqual([]);
  expect(agentState.completedRequests?.[call.permission!.request.id]?.status).toBe('canceled');
  expect(row.active).toBe(false);
}, 120_000);

it('a second signal past the relay window while the session is closing exits at once (code 143), without waiting for the delivery deadline', async () => {
  const proxy = await new FaultProxy(account.relay.url).start();
  try {
    const sessionId = await startAgent(proxy.url);
    const key = await app.keyOf(sessionId);
    await promptForPermission(sessionId, key);
    // The store goes read-only: closing would now wait out its 5 s deadline.
    proxy.decide = (r) =>
      r.method === 'POST' && r.url.includes('/messages')
        ? { kind: 'answer', status: 500, body: { error: 'read-only' } }
        : { kind: 'forward' };
    const writes = (): number =>
      proxy.seen.filter((r) => r.method === 'POST' && r.url.includes('/messages')).length;
    const before = writes();
    agent!.kill('SIGTERM');
    const firstAt = Date.now();
    while (writes() === before) await new Promise((resolve) => setTimeout(resolve, 20));
    // A signal within the window is a parent relaying the first one (liveness.test.ts); the person's
    // second one comes after it.
    while (Date.now() - firstAt <= RELAYED_SIGNAL_WINDOW_MS)
      await new Promise((resolve) => setTimeout(resolve, 20));
    agent!.kill('SIGTERM');

    expect(await exited(agent!)).toEqual({ code: 143, signal: null });
  } finally {
    await proxy.close();
  }
}, 120_000);
