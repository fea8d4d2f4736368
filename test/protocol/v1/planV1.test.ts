import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PlanEntry } from 'happy-session';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { fold } from 'happy-session';
import { AppClient } from '../../transport/appClient.js';
import { relayWithAccount } from '../../transport/helpers.js';
import type { RelayAccount } from '../../transport/helpers.js';
import { READING_ORDERS, appReads } from '../../helpers/happyAppModel.js';
import type { AppAgentState, AppRecord } from '../../helpers/happyAppModel.js';

// A plan written in format 'v1' on the embedded relay, read back as today's app reads it (the
// test-side model of test/helpers/happyAppModel.ts, from the app's TodoWrite renderer and reducer)
// and as the SDK reads it.

let account: RelayAccount;
let app: AppClient;
let session: Session;

const FIRST: PlanEntry[] = [
  { content: 'Read the failing test', status: 'in_progress', priority: 'high' },
  { content: 'Fix the parser', status: 'pending', priority: 'medium' },
  { content: 'Run the suite', status: 'pending' },
];
const SECOND: PlanEntry[] = [
  { content: 'Read the failing test', status: 'completed', priority: 'high' },
  { content: 'Fix the parser', status: 'in_progress', priority: 'medium' },
  { content: 'Run the suite', status: 'pending' },
];
const SUBAGENT: PlanEntry[] = [{ content: 'Search for callers', status: 'in_progress' }];

beforeAll(async () => {
  account = await relayWithAccount();
  app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
  session = await connect({
    format: 'v1',
    server: account.relay.url,
    credentials: account.credentials,
    archiveOnClose: false,
  });
  const turn = session.turn();
  turn.plan(FIRST);
  turn.text('Reading the test first.');
  const research = turn.toolCall({ toolName: 'Task', title: 'Research', agentTitle: 'Researcher' });
  research.scope().plan(SUBAGENT);
  research.end();
  await session.writer.flush();
  // The app orders plans by the server's time of their result (ms); the relay runs in this process,
  // so once its clock has moved on, the next plan is stored later, as plans minutes apart are.
  await nextMillisecond();
  turn.plan(SECOND);
  turn.end();
  await session.writer.flush();
});

async function nextMillisecond(): Promise<void> {
  const start = Date.now();
  while (Date.now() <= start) await new Promise((resolve) => setImmediate(resolve));
}

afterAll(async () => {
  await session?.close();
  app?.close();
  await account?.relay.close();
});

async function appData(): Promise<{ records: AppRecord[]; agentState: AppAgentState }> {
  const key = await app.keyOf(session.id);
  const { messages } = await account.http.request<{
    messages: { seq: number; createdAt: number; content: { c: string } }[];
  }>('GET', `/v3/sessions/${session.id}/messages?after_seq=0&limit=500`);
  const records = await Promise.all(
    messages.map(async (m) => ({
      record: await app.decrypt(m.content.c, key),
      seq: m.seq,
      createdAt: m.createdAt,
    })),
  );
  return { records, agentState: {} };
}

const todos = (entries: PlanEntry[]) =>
  entries.map((e, i) => ({
    content: e.content,
    status: e.status,
    ...(e.priority ? { priority: e.priority } : {}),
    id: String(i + 1),
  }));

describe('a plan in format v1, as today app shows it', () => {
  it.each(READING_ORDERS)(
    'each plan is a TodoWrite checklist; the latest main plan is the todo list (%s)',
    async (order) => {
      const { records, agentState } = await appData();
      const screen = appReads(records, agentState, order);
      expect(screen.dropped).toBe(0);
      const cards = screen.tools.filter((t) => t.name === 'TodoWrite');
      expect(cards.map((t) => t.checklist)).toEqual([todos(FIRST), todos(SUBAGENT), todos(SECOND)]);
      for (const card of cards) expect(card.state).toBe('completed');
      // The subagent's card has no result, so it never becomes the session's list.
      expect(screen.todos).toEqual(todos(SECOND));
    },
  );

  it('reads the plans back as v2 plan messages, and the fold gives the latest', async () => {
    const events = await session.reader.readAll();
    const plans = events.flatMap((e) => (e.kind === 'message' && e.message.type === 'plan' ? [e] : []));
    expect(plans.map((e) => e.message.type === 'plan' && e.message.entries)).toEqual([
      FIRST,
      SUBAGENT,
      SECOND,
    ]);
    expect(plans.every((e) => e.format === 'v1')).toBe(true);
    // The checklist's ends stand for nothing in v2.
    const skipped = events.filter((e) => e.kind === 'skipped');
    expect(skipped).toHaveLength(3);
    const messages = events.flatMap((e) => (e.kind === 'message' ? [e.message] : []));
    expect(fold(messages).plan?.entries).toEqual(SECOND);
    expect(events.some((e) => e.kind === 'error')).toBe(false);
  });
});
