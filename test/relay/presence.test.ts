import { Server } from 'socket.io';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type RelayDatabase } from '../../packages/relay/src/db.js';
import { EventRouter } from '../../packages/relay/src/events.js';
import { SessionPresence, clampActivityTime } from '../../packages/relay/src/presence.js';
import { AccountStore } from '../../packages/relay/src/store/accounts.js';
import { SessionStore } from '../../packages/relay/src/store/sessions.js';

describe('clampActivityTime (§2.4)', () => {
  const now = 1_800_000_000_000;
  it('keeps recent times, clamps future times to now, and drops times older than ten minutes', () => {
    expect(clampActivityTime(now - 5_000, now)).toBe(now - 5_000);
    expect(clampActivityTime(now + 60_000, now)).toBe(now);
    expect(clampActivityTime(now - 10 * 60_000, now)).toBe(now - 10 * 60_000);
    expect(clampActivityTime(now - 10 * 60_000 - 1, now)).toBeUndefined();
  });
});

describe('inactivity sweep (§4.5)', () => {
  let db: RelayDatabase;
  let io: Server;
  beforeEach(() => {
    db = openDatabase(undefined);
    io = new Server();
  });
  afterEach(() => {
    // The socket.io server was never attached to a transport, so it holds nothing to close.
    db.close();
  });

  it('marks sessions silent for ten minutes inactive and leaves fresh ones alone', () => {
    const accounts = new AccountStore(db);
    const sessions = new SessionStore(db);
    const presence = new SessionPresence(sessions, new EventRouter(io, accounts));
    const accountId = accounts.upsertByPublicKey('aa'.repeat(32));
    const silent = sessions.create({ accountId, tag: 'silent', metadata: 'AA==', dataEncryptionKey: null });
    const fresh = sessions.create({ accountId, tag: 'fresh', metadata: 'AA==', dataEncryptionKey: null });
    const later = Date.now() + 10 * 60_000 + 1;
    sessions.setActivity(fresh.id, true, later - 1_000);

    presence.sweep(later);

    expect(sessions.findOwned(silent.id, accountId)).toMatchObject({
      active: false,
      lastActiveAt: silent.lastActiveAt,
    });
    expect(sessions.findOwned(fresh.id, accountId)).toMatchObject({ active: true });
  });
});
