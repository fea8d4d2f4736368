/**
 * The example as a user runs it: `index.ts` as its own process against the relay, with an
 * agent.key in its HAPPY_HOME_DIR, no ANTHROPIC_API_KEY (so the scripted model of demoModel.ts),
 * and the Claude Code binary the tests install. The app sends two prompts and approves each
 * command; the second goes on from the first (`resume`). SIGTERM ends it.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import type { RecordKey } from 'happy-session/crypto';
import type { SessionMessage } from 'happy-session';
import { writeAgentKey } from 'happy-session/node';
import { ensureClaudeCodeBinary } from '../../scripts/claude-code/ensureBinary.js';
import { expectV2Invariants } from '../../test/helpers/invariants.js';
import { AppClient } from '../../test/transport/appClient.js';
import { relayWithAccount, storedOnRelay, tempDir } from '../../test/transport/helpers.js';
import type { RelayAccount } from '../../test/transport/helpers.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const AGENT = fileURLToPath(new URL('./index.ts', import.meta.url));

let binary: string;
let account: RelayAccount;
let dir: { path: string; remove: () => void };
let app: AppClient;
let agent: ChildProcess | undefined;

beforeAll(async () => {
  binary = await ensureClaudeCodeBinary();
}, 600_000);
beforeEach(async () => {
  account = await relayWithAccount();
  dir = tempDir('claude-agent-example-');
  mkdirSync(join(dir.path, 'home'), { mode: 0o700 });
  mkdirSync(join(dir.path, 'work'));
  chmodSync(join(dir.path, 'home'), 0o700);
  writeAgentKey(join(dir.path, 'home'), { secret: account.masterSecret, token: account.token });
  app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
});
afterEach(async () => {
  if (agent && agent.exitCode === null && agent.signalCode === null) agent.kill('SIGKILL');
  app.close();
  await account.relay.close();
  dir.remove();
});

function startAgent(): Promise<string> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HAPPY_SERVER_URL: account.relay.url,
    HAPPY_HOME_DIR: join(dir.path, 'home'),
    CLAUDE_CODE_EXECUTABLE: binary,
  };
  delete env.ANTHROPIC_API_KEY;
  agent = spawn(process.execPath, ['--import', 'tsx', AGENT, '--cwd', join(dir.path, 'work')], {
    cwd: ROOT,
    env,
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

/** The stored stream once `done` holds for it. */
async function storedWhen(
  sessionId: string,
  key: RecordKey,
  done: (messages: SessionMessage[]) => boolean,
): Promise<SessionMessage[]> {
  for (;;) {
    const messages = await storedOnRelay(account, sessionId, key);
    if (done(messages)) return messages;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const count = (messages: SessionMessage[], type: SessionMessage['type']): number =>
  messages.filter((m) => m.type === type).length;

/** The app sends a prompt, then approves the command it leads to, and the turn ends. */
async function promptAndApprove(
  sessionId: string,
  key: RecordKey,
  text: string,
  turn: number,
): Promise<void> {
  await app.send(
    sessionId,
    { role: 'user', content: { type: 'text', text }, meta: { sentFrom: 'web' } },
    key,
  );
  const asked = await storedWhen(sessionId, key, (m) => count(m, 'permission-request') === turn);
  const request = asked.filter((m) => m.type === 'permission-request').at(-1)!;
  await app.call(sessionId, 'permission', { id: request.callId, approved: true }, key);
  await storedWhen(sessionId, key, (m) => count(m, 'turn-end') === turn);
}

it('answers two prompts with Claude Code, each command approved in the app, and stops on SIGTERM', async () => {
  const sessionId = await startAgent();
  const key = await app.keyOf(sessionId);

  await promptAndApprove(sessionId, key, 'buy milk', 1);
  await promptAndApprove(sessionId, key, "call Anne's office", 2);

  expect(readFileSync(join(dir.path, 'work', 'notes.txt'), 'utf8')).toBe("buy milk\ncall Anne's office\n");
  const messages = await storedOnRelay(account, sessionId, key);
  expectV2Invariants(messages);
  expect(messages.filter((m) => m.type === 'turn-end')).toMatchObject([
    { status: 'completed' },
    { status: 'completed' },
  ]);
  const texts = messages.flatMap((m) =>
    m.type === 'text' && m.role === 'agent' && m.parentId === undefined ? [m.text] : [],
  );
  expect(texts).toEqual([
    'The user said "buy milk". I keep it in notes.txt.',
    'I will add that to notes.txt.',
    'Noted in notes.txt.',
    `The user said "call Anne's office". I keep it in notes.txt.`,
    'I will add that to notes.txt.',
    'Noted in notes.txt.',
  ]);

  agent!.kill('SIGTERM');
  await new Promise((resolve) => agent!.once('exit', resolve));
  expect((await app.session(sessionId)).active).toBe(false);
}, 180_000);
