import { filter, firstValueFrom } from 'rxjs';
import type { Socket } from 'socket.io-client';
import { afterEach, describe, expect, test } from 'vitest';
import { SdkError } from 'happy-session';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { openAccountSockets } from '../../packages/sdk/src/transport/accountSockets.js';
import type { RelayOptions } from 'happy-session-relay';
import { AppClient } from './appClient.js';
import { appSocket, relayWithAccount } from './helpers.js';
import type { RelayAccount } from './helpers.js';

/**
 * The sessions of one account in one process share one socket (docs/transport.md, "One socket per
 * account"), on the real relay with real sockets; the relay's per-account socket limit counts the
 * sockets on the server's side.
 */
let account: RelayAccount | undefined;
let app: AppClient | undefined;
const sessions: Session[] = [];
const raw: Socket[] = [];

afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
  for (const socket of raw.splice(0)) socket.disconnect();
  app?.close();
  app = undefined;
  await account?.relay.close();
  account = undefined;
});

async function relay(limits?: RelayOptions['limits']): Promise<RelayAccount> {
  // A call to a method nobody registers is refused at once, not after the relay's wait for one.
  account = await relayWithAccount({ rpcWaitMs: 0, ...(limits ? { limits } : {}) });
  app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
  return account;
}

async function open(on: RelayAccount, count: number): Promise<Session[]> {
  const opened: Session[] = [];
  for (let i = 0; i < count; i++) {
    const session = await connect({
      server: on.relay.url,
      credentials: on.credentials,
      title: `shared ${i}`,
      shutdownSignals: false,
    });
    sessions.push(session);
    opened.push(session);
  }
  return opened;
}

/** Connects raw user-scoped sockets of the account until the relay refuses one; how many it took. */
async function socketsLeft(on: RelayAccount, limit: number): Promise<number> {
  for (let n = 0; n <= limit; n++) {
    try {
      raw.push(await appSocket(on.relay.url, on.token));
    } catch (error) {
      expect((error as Error).message).toBe('Too many connections for this account');
      return n;
    }
  }
  throw new Error('the relay took more sockets than its limit');
}

describe('one socket per account', () => {
  test('twelve sessions of one account use one socket of the relay', async () => {
    const on = await relay({ socketsPerAccount: 4 });
    await open(on, 12);
    expect(openAccountSockets()).toBe(1);
    // The app holds one place and the twelve sessions one: two are left.
    expect(await socketsLeft(on, 4)).toBe(2);
  });

  test('each session gets only its own updates and its own RPCs, and answers only its own', async () => {
    const on = await relay();
    const [a, b] = await open(on, 2);
    const keyA = await app!.keyOf(a!.id);
    const keyB = await app!.keyOf(b!.id);
    const seenByA: unknown[] = [];
    const seenByB: unknown[] = [];
    a!.transport.socket.updates$.subscribe((u) => seenByA.push(u));
    b!.transport.socket.updates$.subscribe((u) => seenByB.push(u));
    const calledA: unknown[] = [];
    const calledB: unknown[] = [];
    a!.rpc.register('whoami', (params) => (calledA.push(params), { id: a!.id }));
    b!.rpc.register('whoami', (params) => (calledB.push(params), { id: b!.id }));

    expect(await app!.call(a!.id, 'whoami', 'to a', keyA)).toEqual({ id: a!.id });
    expect(await app!.call(b!.id, 'whoami', 'to b', keyB)).toEqual({ id: b!.id });
    expect(calledA).toEqual(['to a']);
    expect(calledB).toEqual(['to b']);

    // A's message reaches the shared socket first; B's update list starts with B's own.
    const bSaw = firstValueFrom(b!.transport.socket.updates$);
    await app!.send(a!.id, { role: 'user', content: { type: 'text', text: 'for a' } }, keyA);
    await app!.send(b!.id, { role: 'user', content: { type: 'text', text: 'for b' } }, keyB);
    await bSaw;
    const sidOf = (u: unknown): unknown => (u as { body: { sid?: unknown; id?: unknown } }).body.sid;
    expect(seenByB.map(sidOf)).toEqual([b!.id]);
    expect(seenByA.map(sidOf)).toEqual([a!.id]);
  });

  test("closing one session leaves the others working, and the server stops routing the closed one's RPCs", async () => {
    const on = await relay();
    const [a, b, c] = await open(on, 3);
    const keyA = await app!.keyOf(a!.id);
    const keyC = await app!.keyOf(c!.id);
    for (const s of [a!, b!, c!]) s.rpc.register('whoami', () => s.id);
    await b!.close();
    expect(await app!.call(a!.id, 'whoami', null, keyA)).toBe(a!.id);
    expect(await app!.call(c!.id, 'whoami', null, keyC)).toBe(c!.id);
    await expect(app!.call(b!.id, 'whoami', null, keyA)).rejects.toThrow('RPC method not available');

    const turn = c!.turn();
    turn.text('still writing');
    turn.end();
    await c!.writer.flush();
    const texts = (await c!.reader.messages()).filter((m) => m.type === 'text');
    expect(texts.map((m) => (m as { text: string }).text)).toEqual(['still writing']);
    expect(openAccountSockets()).toBe(1);
  });

  test('the last session to close closes the socket', async () => {
    const on = await relay({ socketsPerAccount: 2 });
    const opened = await open(on, 3);
    for (const s of opened) await s.close();
    sessions.length = 0;
    expect(openAccountSockets()).toBe(0);
    expect(await socketsLeft(on, 2)).toBe(1);
  });

  test('a reconnect restores every session: each hears it, and each answers its RPCs again', async () => {
    const on = await relay();
    const opened = await open(on, 4);
    for (const s of opened) s.rpc.register('whoami', () => s.id);
    const reconnected = opened.map((s) =>
      firstValueFrom(s.transport.reconnected$.pipe(filter((c) => c.reconnect))),
    );
    opened[0]!.transport.socket.dropConnection();
    await Promise.all(reconnected);
    for (const s of opened) {
      expect(await app!.call(s.id, 'whoami', null, await app!.keyOf(s.id))).toBe(s.id);
    }
  });

  test("a socket the server refuses fails connect() with transport.socket_refused and the server's reason", async () => {
    const on = await relay({ socketsPerAccount: 1 });
    // The app holds the account's one socket.
    const error = await connect({
      server: on.relay.url,
      credentials: on.credentials,
      shutdownSignals: false,
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe('transport.socket_refused');
    expect((error as SdkError).message).toContain('Too many connections for this account');
    expect((error as SdkError).details).toEqual({ reason: 'Too many connections for this account' });
    expect(openAccountSockets()).toBe(0);
    // The refused connect() leaves no empty session in the person's list.
    const listed = await on.http.request<{ sessions: unknown[] }>('GET', '/v1/sessions');
    expect(listed.sessions).toEqual([]);

    // Once the app's socket is gone, the next connect() gets a socket of its own.
    app!.close();
    app = undefined;
    await expect
      .poll(async () => {
        const session = await connect({
          server: on.relay.url,
          credentials: on.credentials,
          shutdownSignals: false,
        }).catch(() => undefined);
        if (session) sessions.push(session);
        return session !== undefined;
      })
      .toBe(true);
  });
});
