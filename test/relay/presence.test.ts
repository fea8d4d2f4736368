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

describe('the end of an agent\'s socket (docs/relay.md, "Liveness")', () => {
  let db: RelayDatabase;
  let io: Server;
  let sessions: SessionStore;
  let presence: SessionPresence;
  let accountId: string;
  beforeEach(() => {
    db = openDatabase(undefined);
    io = new Server();
    const accounts = new AccountStore(db);
    sessions = new SessionStore(db);
    presence = new SessionPresence(sessions, new EventRouter(io, accounts));
    accountId = accounts.upsertByPublicKey('bb'.repeat(32));
  });
  afterEach(() => db.close());

  const session = (tag: string) =>
    sessions.create({ accountId, tag, metadata: 'AA==', dataEncryptionKey: null }).id;
  const active = (id: string) => sessions.findOwned(id, accountId)?.active;

  it('a session is inactive once the last socket that beat for it closes, not before', () => {
    const shared = session('shared');
    const own = session('own');
    presence.heartbeat(accountId, shared, Date.now(), false, 'socket-a');
    presence.heartbeat(accountId, shared, Date.now(), false, 'socket-b');
    presence.heartbeat(accountId, own, Date.now(), false, 'socket-a');

    presence.socketClosed(accountId, 'socket-a');
    expect(active(own)).toBe(false);
    expect(active(shared)).toBe(true);

    presence.socketClosed(accountId, 'socket-b');
    expect(active(shared)).toBe(false);
  });

  it('is not a stop: the beat of a socket that reconnected makes the session active again', () => {
    const id = session('reconnects');
    presence.heartbeat(accountId, id, Date.now(), false, 'socket-a');
    presence.socketClosed(accountId, 'socket-a');
    expect(active(id)).toBe(false);

    presence.heartbeat(accountId, id, Date.now(), false, 'socket-b');
    expect(active(id)).toBe(true);
  });

  it('positive controls: a socket that never beat (an app, the viewer) or a session already ended changes nothing', () => {
    const live = session('live');
    presence.heartbeat(accountId, live, Date.now(), false, 'agent');
    presence.socketClosed(accountId, 'viewer');
    expect(active(live)).toBe(true);

    const ended = session('ended');
    presence.heartbeat(accountId, ended, Date.now(), false, 'agent-2');
    const endedAt = Date.now() - 1_000;
    presence.end(accountId, ended, endedAt);
    presence.socketClosed(accountId, 'agent-2');
    expect(sessions.findOwned(ended, accountId)).toMatchObject({ active: false, lastActiveAt: endedAt });
  });
});
