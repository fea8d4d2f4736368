import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { permissions, runAgent } from '../../examples/custom-agent/agent.js';
import { connect, writeAgentKey } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { relayWithAccount, tempDir } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';

/**
 * The example of docs/user-side.md, run as a program three times against a live agent: it
 * answers what it is asked, closes what it opened and exits on its own each time, and re-running
 * it never answers an old request again.
 */
const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const EXAMPLE_DIR = join(ROOT, 'test-output', 'user-side');

let account: RelayAccount;
let agent: Session;
let agentDone: Promise<void>;
const home = tempDir('happy-user-side-');
const work = tempDir('happy-user-side-work-');

beforeAll(async () => {
  account = await relayWithAccount();
  writeAgentKey(home.path, { secret: account.masterSecret });
  agent = await connect({
    server: account.relay.url,
    credentials: account.credentials,
    title: 'Custom agent',
    permissions,
    archiveOnClose: false,
  });
  agentDone = runAgent(agent, { cwd: work.path });
  const docs = readFileSync(join(ROOT, 'docs/user-side.md'), 'utf8');
  const block = /```ts\n(\/\/ answer-once\.mts[\s\S]*?)```/.exec(docs)?.[1];
  expect(block, 'the example block in docs/user-side.md').toBeDefined();
  mkdirSync(EXAMPLE_DIR, { recursive: true });
  writeFileSync(join(EXAMPLE_DIR, 'answer-once.mts'), block!);
});

afterAll(async () => {
  await agent?.close({ archive: false });
  await agentDone?.catch(() => undefined);
  await account?.relay.close();
  home.remove();
  work.remove();
});

describe('the user-side example of the docs', () => {
  it('runs three times, exits on its own each time, and the stream holds one answer per request', async () => {
    const marks = join(work.path, 'marks');
    for (const n of [1, 2, 3]) {
      // No kill, no timeout of ours: the child exits by itself or the test times out.
      const { stdout } = await run(
        process.execPath,
        ['--import', 'tsx', join(EXAMPLE_DIR, 'answer-once.mts'), agent.id, `run echo ${n} >> ${marks}`],
        {
          cwd: ROOT,
          env: { ...process.env, HAPPY_HOME_DIR: home.path, HAPPY_SERVER_URL: account.relay.url },
        },
      );
      expect(stdout.trim()).toBe(`Run \`echo ${n} >> ${marks}\`: sent`);
    }
    expect(readFileSync(marks, 'utf8')).toBe('1\n2\n3\n');

    const messages = await agent.reader.messages();
    const requests = messages.filter((m) => m.type === 'permission-request');
    expect(requests).toHaveLength(3);
    for (const request of requests) {
      const responses = messages.filter(
        (m) => m.type === 'permission-response' && m.callId === request.callId,
      );
      // One response per request, the user's own; the agent confirms it with a note in the call.
      expect(responses).toHaveLength(1);
      expect(responses[0]).not.toHaveProperty('via');
      const note = messages.find(
        (m) =>
          m.type === 'service' &&
          m.parentId === request.callId &&
          m.text.startsWith('Permission answer applied: '),
      );
      expect(note).toMatchObject({ text: `Permission answer applied: ${responses[0]!.id}` });
    }
  }, 120_000);
});
