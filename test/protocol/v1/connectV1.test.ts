import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { IncomingUserMessage } from '../../../packages/sdk/src/session/incomingUserMessage.js';
import { connect } from '../../../packages/sdk/src/session/connect.js';
import { AppClient } from '../../transport/appClient.js';
import { relayWithAccount } from '../../transport/helpers.js';
import type { RelayAccount } from '../../transport/helpers.js';
import { expectValidV1Stream, normaliseV1 } from './helpers.js';

// connect({format: 'v1'}) against the embedded relay, read back from the app's side of the wire:
// raw HTTP and the app's own key derivation, no SDK transport code.

let account: RelayAccount;
let app: AppClient;

beforeAll(async () => {
  account = await relayWithAccount();
  app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
});
afterAll(async () => {
  app.close();
  await account.relay.close();
});

async function appReads(sessionId: string): Promise<unknown[]> {
  const key = await app.keyOf(sessionId);
  const { messages } = await account.http.request<{ messages: { content: { c: string } }[] }>(
    'GET',
    `/v3/sessions/${sessionId}/messages?after_seq=0&limit=500`,
  );
  return Promise.all(messages.map((m) => app.decrypt(m.content.c, key)));
}

const META = { sentFrom: 'cli' };
const agent = (turn: string, ev: Record<string, unknown>, subagent?: string) => ({
  role: 'session',
  content: { role: 'agent', turn, ...(subagent ? { subagent } : {}), ev },
  meta: META,
});

describe("connect({format: 'v1'}) on the relay", () => {
  test('stores v1 records the app can read: turns, a failed call with its acp result, a subagent', async () => {
    const session = await connect({
      format: 'v1',
      server: account.relay.url,
      credentials: account.credentials,
    });
    const v2Types: string[] = [];
    session.writer.messages$.subscribe((m) => v2Types.push(m.type));
    const incoming: IncomingUserMessage[] = [];
    session.incoming$.subscribe((m) => incoming.push(m));

    const turn = session.turn();
    turn.text('Checking');
    turn
      .toolCall({ toolName: 'Bash', title: 'Run make', args: { command: 'make' } })
      .end({ error: 'exit 2' });
    const task = turn.toolCall({ toolName: 'Task', title: 'Explore', agentTitle: 'Explorer' });
    task.scope().text('inside');
    task.end();
    const last = turn.end();
    const { seq } = await last;
    await session.close();

    // The writer's own API stays v2.
    expect(v2Types).toEqual([
      'turn-start',
      'text',
      'tool-call-start',
      'tool-call-end',
      'tool-call-start',
      'text',
      'tool-call-end',
      'turn-end',
    ]);
    const records = expectValidV1Stream(await appReads(session.id));
    expect(records).toHaveLength(seq);
    expect(normaliseV1(records)).toEqual([
      agent('#1', { t: 'turn-start' }),
      agent('#1', { t: 'text', text: 'Checking' }),
      agent('#1', {
        t: 'tool-call-start',
        call: '#2',
        name: 'Bash',
        title: 'Run make',
        description: '',
        args: { command: 'make' },
      }),
      {
        role: 'agent',
        content: {
          type: 'acp',
          provider: 'claude',
          data: { type: 'tool-result', callId: '#2', output: 'exit 2', isError: true },
        },
        meta: META,
      },
      agent('#1', { t: 'tool-call-end', call: '#2', output: 'exit 2', isError: true }),
      agent('#1', {
        t: 'tool-call-start',
        call: '#3',
        name: 'Task',
        title: 'Explore',
        description: '',
        args: {},
      }),
      agent('#1', { t: 'start', title: 'Explorer' }, '#3'),
      agent('#1', { t: 'text', text: 'inside' }, '#3'),
      agent('#1', { t: 'stop' }, '#3'),
      agent('#1', { t: 'tool-call-end', call: '#3' }),
      agent('#1', { t: 'turn-end', status: 'completed' }),
    ]);
    // Nothing the session wrote came back as user input.
    expect(incoming).toEqual([]);
  });

  test("the app's prompts still arrive in a v1 session, and user text written by the agent is a v1 user envelope", async () => {
    const session = await connect({
      format: 'v1',
      server: account.relay.url,
      credentials: account.credentials,
    });
    const prompts = session.prompts()[Symbol.asyncIterator]();
    await session.writer.append({ role: 'user', type: 'text', text: 'typed in the terminal' });
    await app.send(
      session.id,
      { role: 'user', content: { type: 'text', text: 'Fix the login bug' } },
      session.key,
    );
    const next = await prompts.next();
    expect(next.done).toBe(false);
    expect(next.value).toMatchObject({ text: 'Fix the login bug' });
    const stored = await appReads(session.id);
    expect(stored[0]).toEqual({
      role: 'session',
      content: {
        id: expect.any(String),
        time: expect.any(Number),
        role: 'user',
        ev: { t: 'text', text: 'typed in the terminal' },
      },
      meta: META,
    });
    await session.close();
  });
});
