import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Account, writeAgentKey } from 'happy-session/node';
import type { UserSession } from 'happy-session/user';
import { fold } from 'happy-session';
import { relayWithAccount, tempDir } from '../../test/transport/helpers.js';
import type { RelayAccount } from '../../test/transport/helpers.js';
import { until } from '../../test/helpers/until.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const INDEX = fileURLToPath(new URL('./index.ts', import.meta.url));

let account: RelayAccount;
let home: { path: string; remove: () => void };
let user: Account;
let children: ChildProcess[] = [];

beforeEach(async () => {
  account = await relayWithAccount();
  home = tempDir('happy-restart-safe-');
  chmodSync(home.path, 0o700);
  writeAgentKey(home.path, { secret: account.masterSecret, token: account.token });
  user = await Account.open({ server: account.relay.url, credentials: account.credentials });
});
afterEach(async () => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  children = [];
  await user.close();
  await account.relay.close();
  home.remove();
});

const ledger = (): string => join(home.path, 'deploys.log');
/**
 * The deploys in the ledger, one per line. A file just created and not yet written (the agent's
 * append opens it before it writes) holds none.
 */
const deploys = (): string[] =>
  existsSync(ledger())
    ? readFileSync(ledger(), 'utf8')
        .split('\n')
        .filter((l) => l.length > 0)
        .map((l) => l.replace(/ in \d+$/, ''))
    : [];

/** Starts the example as a user runs it, and waits for its session id. */
async function start(sessionId?: string): Promise<{ child: ChildProcess; id: string; out: () => string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', INDEX, ...(sessionId ? [sessionId] : [])], {
    cwd: ROOT,
    env: {
      ...process.env,
      HAPPY_SERVER_URL: account.relay.url,
      HAPPY_HOME_DIR: home.path,
      DEPLOY_LEDGER: ledger(),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const id = await until(() => /session (\S+)/.exec(out)?.[1], {
    timeoutMs: 60_000,
    what: () => `the example's session id (stderr: ${err})`,
  });
  return { child, id, out: () => out };
}

async function waitingRequest(session: UserSession): Promise<string> {
  const [request] = await until(async () => {
    const pending = await session.pending();
    return pending.length > 0 ? pending : undefined;
  });
  return request!.callId;
}

describe('restart-safe example', () => {
  it('killed while a deploy waits: the allow given meanwhile runs it once in the next process, and a prompt sent meanwhile is served', async () => {
    const first = await start();
    const session = await user.session(first.id);
    await session.send('production');
    const callId = await waitingRequest(session);
    const gone = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await gone;

    // Nobody runs: the allow and the next prompt wait in the stream.
    const answer = await session.answer(callId, 'allow');
    if (answer.status !== 'sent') throw new Error('the request was not pending');
    await answer.recorded;
    await session.send('staging');
    expect(deploys()).toEqual([]);

    const second = await start(first.id);
    await until(() => /took over 1 calls/.test(second.out()));
    await until(() => deploys().length === 1);
    expect(deploys()).toEqual(['deployed production']);

    // The prompt sent meanwhile is served by this process, and asks as any deploy does.
    const next = await waitingRequest(session);
    expect(next).not.toBe(callId);
    const sent = await session.answer(next, 'allow');
    if (sent.status !== 'sent') throw new Error('the request was not pending');
    await until(() => deploys().length === 2);
    expect(deploys()).toEqual(['deployed production', 'deployed staging']);

    // The dead turn ended cancelled ("The agent restarted."), the two deploys' turns completed.
    const statuses = async (): Promise<string[]> =>
      fold(await session.reader.messages())
        .timeline.filter((n) => n.kind === 'turn')
        .map((t) => t.status);
    await until(async () => (await statuses()).length === 3 && !(await statuses()).includes('open'));
    expect(await statuses()).toEqual(['cancelled', 'completed', 'completed']);
    second.child.kill('SIGINT');
  });
});
