import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { IncomingUserMessage } from 'happy-session/node';
import { connect } from 'happy-session/node';
import { RELAY_INFO_PATH } from 'happy-session/internal';
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
const agent = (turn: string, ev: Record<string, unknown>) => ({
  role: 'session',
  content: { role: 'agent', turn, ev },
  meta: META,
});

describe("connect({format: 'v1'}) on the relay", () => {
  test('stores v1 records the app can read: turns, a failed call ending with its acp result, a flat subagent', async () => {
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
        description: 'Run make',
        args: { command: 'make' },
      }),
      {
        role: 'agent',
        content: {
          type: 'acp',
          provider: 'claude',
          data: { type: 'tool-result', callId: '#2', output: 'exit 2', isError: true, turn: '#1' },
        },
        meta: META,
      },
      agent('#1', {
        t: 'tool-call-start',
        call: '#3',
        name: 'Task',
        title: 'Explore',
        description: 'Explore',
        args: {},
      }),
      agent('#1', { t: 'text', text: 'inside' }),
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

describe("connect()'s default format, 'auto'", () => {
  test('on the embedded relay it writes v2, which the relay viewer shows', async () => {
    const session = await connect({ server: account.relay.url, credentials: account.credentials });
    expect(session.format).toBe('v2');
    const turn = session.turn();
    await turn.text('hello viewer');
    await session.close();
    const [record] = await appReads(session.id);
    expect(record).toMatchObject({ role: 'agent', type: 'turn-start' });
  });

  test("on a server that does not describe itself as the relay (the Happy server answers 404) it writes v1 for today's app", async () => {
    // The Happy server has no relay self-description: its answer to that path is fastify's 404.
    const happyServer: typeof fetch = async (input, init) =>
      String(input).endsWith(RELAY_INFO_PATH)
        ? new Response(
            JSON.stringify({
              message: 'Route GET:/v1/happy-session/relay not found',
              error: 'Not Found',
              statusCode: 404,
            }),
            {
              status: 404,
              headers: { 'content-type': 'application/json' },
            },
          )
        : fetch(input, init);
    const session = await connect({
      server: account.relay.url,
      credentials: account.credentials,
      fetch: happyServer,
    });
    expect(session.format).toBe('v1');
    const turn = session.turn();
    await turn.text('hello phone');
    await session.close();
    const records = expectValidV1Stream(await appReads(session.id));
    expect(normaliseV1(records).slice(0, 2)).toEqual([
      agent('#1', { t: 'turn-start' }),
      agent('#1', { t: 'text', text: 'hello phone' }),
    ]);
  });
});
