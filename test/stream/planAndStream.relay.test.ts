import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordKey } from 'happy-session/crypto';
import { isSdkError, fold } from 'happy-session';
import type { PlanEntry, SessionMessage } from 'happy-session';
import type { TextStreamTimers } from 'happy-session/internal';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { AppClient } from '../transport/appClient.js';
import { relayWithAccount, storedOnRelay } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';
import { llmDeltas } from '../helpers/llmDeltas.js';

// turn.plan() and turn.textStream() on the embedded relay over real sockets: written by a v2
// session, read back from the relay by a reader of its own, and stopped by the app's abort RPC.

let account: RelayAccount;
let app: AppClient;

/** Timers that never fire: the idle window plays no part unless a test moves it. */
const noIdle: TextStreamTimers = { setTimeout: () => 0, clearTimeout: () => undefined };

beforeAll(async () => {
  account = await relayWithAccount();
  app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
});

afterAll(async () => {
  app?.close();
  await account?.relay.close();
});

async function open(): Promise<{ session: Session; key: RecordKey }> {
  const session = await connect({
    server: account.relay.url,
    credentials: account.credentials,
    archiveOnClose: false,
  });
  return { session, key: session.key };
}

function texts(messages: readonly SessionMessage[]): string[] {
  return messages.flatMap((m) => (m.type === 'text' && m.role === 'agent' ? [m.text] : []));
}

describe('turn.plan() on the relay', () => {
  it('stores each plan whole; a reader and the fold get the latest as the plan', async () => {
    const { session, key } = await open();
    const first: PlanEntry[] = [
      { content: 'Read the issue', status: 'in_progress', priority: 'high' },
      { content: 'Write the fix', status: 'pending' },
    ];
    const second: PlanEntry[] = [
      { content: 'Read the issue', status: 'completed', priority: 'high' },
      { content: 'Write the fix', status: 'in_progress' },
      { content: 'Ask for review', status: 'pending', priority: 'low' },
    ];
    const turn = session.turn();
    turn.plan(first);
    turn.plan(second);
    turn.end();
    await session.writer.flush();
    const stored = await storedOnRelay(account, session.id, key);
    const plans = stored.filter((m) => m.type === 'plan');
    expect(plans).toHaveLength(2);
    expect(plans.map((m) => m.type === 'plan' && m.entries)).toEqual([first, second]);
    expect(plans[0]).toMatchObject({ role: 'agent', turn: turn.id });
    const folded = fold(stored);
    expect(folded.plan?.entries).toEqual(second);
    expect(folded.turn(turn.id)?.children.filter((n) => n.kind === 'message')).toHaveLength(2);
    await session.close();
  });

  it('refuses a plan entry with a status outside the three, and appends nothing', async () => {
    const { session, key } = await open();
    const turn = session.turn();
    let thrown: unknown;
    try {
      turn.plan([{ content: 'Ship it', status: 'done' as PlanEntry['status'] }]);
    } catch (error) {
      thrown = error;
    }
    expect(isSdkError(thrown, 'stream.invalid_message')).toBe(true);
    expect((thrown as Error).message).toContain('entries.0.status');
    turn.end();
    await session.writer.flush();
    const stored = await storedOnRelay(account, session.id, key);
    expect(stored.map((m) => m.type)).toEqual(['turn-start', 'turn-end']);
    await session.close();
  });
});

describe('turn.textStream() on the relay', () => {
  it('turns 2,000 deltas of 1-5 characters with a break every 200 into 10 messages of exactly the text', async () => {
    const { session, key } = await open();
    const turn = session.turn();
    const stream = turn.textStream({ timers: noIdle });
    const deltas = llmDeltas();
    for (const delta of deltas) stream.write(delta);
    await stream.end();
    turn.end();
    await session.writer.flush();
    const stored = await storedOnRelay(account, session.id, key);
    const written = texts(stored);
    expect(written).toHaveLength(10);
    expect(written.join('')).toBe(deltas.join(''));
    expect(stored.map((m) => m.type)).toEqual(['turn-start', ...written.map(() => 'text'), 'turn-end']);
    await session.close();
  });

  it("ends at the app's stop: the text so far is stored and the turn ends cancelled", async () => {
    const { session, key } = await open();
    const turn = session.turn();
    const stream = turn.textStream({ timers: noIdle });
    const deltas = llmDeltas();
    let accepted = 0;
    for (const delta of deltas.slice(0, 700)) {
      stream.write(delta);
      accepted += 1;
    }
    // The person presses stop in the app: the abort RPC, over the relay.
    await app.call(session.id, 'abort', { reason: 'stop' }, key);
    expect(turn.signal.aborted).toBe(true);
    expect(stream.ended).toBe(true);
    for (const delta of deltas.slice(700)) if (stream.write(delta)) accepted += 1;
    expect(accepted).toBe(700);
    turn.end();
    await session.writer.flush();
    const stored = await storedOnRelay(account, session.id, key);
    expect(texts(stored).join('')).toBe(deltas.slice(0, 700).join(''));
    // Three whole paragraphs, then the part of the fourth written before the stop.
    expect(texts(stored)).toHaveLength(4);
    expect(stored.at(-1)).toMatchObject({ type: 'turn-end', status: 'cancelled' });
    await session.close();
  });
});
