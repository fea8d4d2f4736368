import { afterEach, describe, expect, test } from 'vitest';
import { SdkError } from 'happy-session';
import { connect } from 'happy-session/node';
import { createSessionRecord } from 'happy-session/internal';
import { openSessionRecord } from '../../packages/sdk/src/transport/sessionRecord.js';
import type { Session } from 'happy-session/node';
import { accountOn, relayWithAccount } from './helpers.js';
import type { RelayAccount } from './helpers.js';

/**
 * `connect({ sessionId })` finds the session in one request, on the real relay, whatever the size
 * of the account's list (docs/wire.md §4.1): never a walk through `GET /v2/sessions` pages.
 */
let account: RelayAccount | undefined;
const sessions: Session[] = [];

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
  await account?.relay.close();
  account = undefined;
});

/** A fetch that counts the session-list requests it carries. */
function countingFetch(): { fetch: typeof fetch; listReads: () => number } {
  let reads = 0;
  return {
    fetch: (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url;
      if (new URL(url).pathname === '/v2/sessions') reads++;
      return fetch(input, init);
    },
    listReads: () => reads,
  };
}

describe('open a session by id', () => {
  test('the oldest, a middle one and the newest of 250 sessions (more than a page of the list) open in one list request each', async () => {
    account = await relayWithAccount();
    const on = account;
    const ids: string[] = [];
    for (let i = 0; i < 250; i++) {
      ids.push((await createSessionRecord(on.http, on.credentials, { title: `s${i}` })).id);
    }
    for (const id of [ids[0]!, ids[125]!, ids[249]!]) {
      const counter = countingFetch();
      const session = await connect({
        server: on.relay.url,
        credentials: on.credentials,
        sessionId: id,
        shutdownSignals: false,
        fetch: counter.fetch,
      });
      sessions.push(session);
      expect(session.id).toBe(id);
      expect(counter.listReads()).toBe(1);
    }
    // Positive control on the record itself: its metadata decrypts with the unwrapped key.
    const record = await openSessionRecord(on.http, on.credentials, ids[125]!);
    expect(record.metadata.value).toMatchObject({ title: 's125' });
  });

  test('an id the account does not have, or one of another account, is transport.not_found', async () => {
    account = await relayWithAccount();
    const on = account;
    const mine = await createSessionRecord(on.http, on.credentials, { title: 'mine' });
    const other = await accountOn(on.relay.url);
    const theirs = await createSessionRecord(other.http, other.credentials, { title: 'theirs' });
    // Ids just around a real one: a prefix of it, and one past it.
    for (const id of [theirs.id, mine.id.slice(0, -1), `${mine.id}0`, 'nothing']) {
      const error = await openSessionRecord(on.http, on.credentials, id).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(SdkError);
      expect((error as SdkError).code).toBe('transport.not_found');
    }
    expect((await openSessionRecord(on.http, on.credentials, mine.id)).id).toBe(mine.id);
  });
});
