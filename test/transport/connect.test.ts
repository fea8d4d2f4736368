import { filter, firstValueFrom } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { deriveAccountKeys } from 'happy-session/crypto';
import { randomBytes } from 'happy-session/internal';
import { SdkError, silentLogger } from 'happy-session';
import { connect } from 'happy-session/node';
import type { Session, Prompt } from 'happy-session/node';
import { AppClient } from './appClient.js';
import { relayWithAccount } from './helpers.js';
import type { RelayAccount } from './helpers.js';

let account: RelayAccount;
let app: AppClient;
const sessions: Session[] = [];

beforeAll(async () => {
  account = await relayWithAccount();
  app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
});
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  app.close();
  await account.relay.close();
});

async function open(options: Parameters<typeof connect>[0] = {}): Promise<Session> {
  const session = await connect({ server: account.relay.url, credentials: account.credentials, ...options });
  sessions.push(session);
  return session;
}

async function nextPrompt(iterator: AsyncIterator<Prompt>): Promise<Prompt> {
  const next = await iterator.next();
  if (next.done) throw new Error('prompts ended');
  return next.value;
}

describe('connect() on the relay', () => {
  test('creates a dataKey session the app can open: metadata decrypts, agentState went from v0 to v1', async () => {
    // Without a gate, which would also write its mode to the metadata (tested in test/permissions).
    const session = await open({
      title: 'Fix the login bug',
      metadata: { flavor: 'claude', custom: 42 },
      permissions: false,
    });
    const row = await app.session(session.id);
    expect(row.dataEncryptionKey).not.toBeNull();
    const key = await app.keyOf(session.id);
    const metadata = (await app.decrypt(row.metadata, key)) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      path: process.cwd(),
      host: expect.any(String),
      os: process.platform,
      flavor: 'claude',
      custom: 42,
      lifecycleState: 'running',
      summary: { text: 'Fix the login bug', updatedAt: expect.any(Number) },
    });
    expect(row.metadataVersion).toBe(0);
    expect(row.agentStateVersion).toBe(1);
    // No prompt taken yet: a successor delivers every prompt (docs/recovery.md, "Prompts").
    // And the format it is written in, for the user's side while no record says (docs/user-side.md).
    // And this process's writer lease (docs/writer-lease.md).
    expect(await app.decrypt(row.agentState, key)).toEqual({
      controlledByUser: false,
      promptsTakenThrough: 0,
      streamFormat: 'v2',
      writerLease: expect.objectContaining({ pid: process.pid }),
    });
    expect(session.state.agentStateVersion).toBe(1);
  });

  test('an unknown format is refused with transport.format_unsupported before any network call', async () => {
    const format = 'v3' as unknown as 'v2';
    const error = await connect({ format, server: 'http://127.0.0.1:1' }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe('transport.format_unsupported');
    expect((error as SdkError).hint).toContain("'v1'");
  });

  test('RPC round trip from the app: params decrypt, result encrypts; errors come back as {error}', async () => {
    const session = await open();
    const key = await app.keyOf(session.id);
    session.rpc.register('echo', (params) => ({ echoed: params }));
    session.rpc.register('fails', () => {
      throw new Error('no such file');
    });
    expect(await app.call(session.id, 'echo', { a: [1, 'two'] }, key)).toEqual({ echoed: { a: [1, 'two'] } });
    expect(await app.call(session.id, 'fails', {}, key)).toEqual({ error: 'no such file' });
    // A method the server routes here but no handler knows.
    session.transport.socket.emit('rpc-register', { method: `${session.id}:ghost` });
    expect(await app.call(session.id, 'ghost', {}, key)).toEqual({ error: 'Method not found' });
  });

  test("a handler's afterAnswer tasks run in order after its answer; one that throws is logged, the others still run", async () => {
    const errors: Array<Record<string, unknown> | undefined> = [];
    const session = await open({
      logger: { ...silentLogger, error: (_message, fields) => errors.push(fields) },
    });
    const key = await app.keyOf(session.id);
    const ran: string[] = [];
    session.rpc.register('follow', (params, { afterAnswer }) => {
      afterAnswer(() => ran.push('first'));
      afterAnswer(() => {
        throw new Error('the mirror is gone');
      });
      afterAnswer(() => ran.push('third'));
      ran.push('handler');
      return { got: params };
    });
    session.rpc.register('later', async (_params, { afterAnswer }) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      afterAnswer(() => ran.push('after an async handler'));
      return 'late';
    });

    expect(await app.call(session.id, 'follow', 7, key)).toEqual({ got: 7 });
    expect(await app.call(session.id, 'later', null, key)).toBe('late');
    await session.rpc.idle();
    expect(ran).toEqual(['handler', 'first', 'third', 'after an async handler']);
    expect(errors).toEqual([{ method: `${session.id}:follow`, error: 'Error: the mirror is gone' }]);
  });

  test('RPC handlers are registered again after a reconnect', async () => {
    const session = await open();
    const key = await app.keyOf(session.id);
    session.rpc.register('ping2', () => 'pong');
    const reconnected = firstValueFrom(session.transport.reconnected$.pipe(filter((c) => c.reconnect)));
    session.transport.socket.dropConnection();
    await reconnected;
    expect(await app.call(session.id, 'ping2', null, key)).toBe('pong');
  });

  test("abort aborts the open turn's signal; thinking follows the open turns", async () => {
    const session = await open();
    const key = await app.keyOf(session.id);
    const thinkingOn = new Promise<void>((resolve) => {
      const on = (e: { type: string; id: string; thinking?: boolean }): void => {
        if (e.type !== 'activity' || e.id !== session.id || !e.thinking) return;
        app.socket.off('ephemeral', on);
        resolve();
      };
      app.socket.on('ephemeral', on);
    });
    const turn = session.turn();
    expect(session.transport.thinking).toBe(true);
    await thinkingOn;
    expect(turn.signal.aborted).toBe(false);
    expect(await app.call(session.id, 'abort', { reason: 'stop' }, key)).toEqual({ aborted: 1 });
    expect(turn.signal.aborted).toBe(true);
    turn.end('cancelled');
    expect(session.transport.thinking).toBe(false);
  });

  test('killSession archives the metadata, answers {success:true}, and closes the session', async () => {
    const session = await connect({ server: account.relay.url, credentials: account.credentials });
    const key = await app.keyOf(session.id);
    session.turn().text('working');
    const answer = await app.call(session.id, 'killSession', {}, key);
    expect(answer).toEqual({ success: true, message: expect.any(String) });
    await session.closed;
    expect(session.signal.aborted).toBe(true);
    const row = await app.session(session.id);
    expect(row.active).toBe(false);
    expect(await app.decrypt(row.metadata, key)).toMatchObject({
      lifecycleState: 'archived',
      archivedBy: 'cli',
      archiveReason: 'User terminated',
    });
    // The open turn was ended as cancelled and delivered before the session closed.
    const { messages } = await account.http.request<{ messages: { content: { c: string } }[] }>(
      'GET',
      `/v3/sessions/${session.id}/messages?after_seq=0`,
    );
    const stored = await Promise.all(messages.map((m) => app.decrypt(m.content.c, key)));
    expect(stored.map((m) => (m as { type: string }).type)).toEqual(['turn-start', 'text', 'turn-end']);
    expect(stored[2]).toMatchObject({ status: 'cancelled' });
  });

  test("prompts(): the app's legacy user text is normalised, v2 user text passes, own echoes are skipped", async () => {
    const session = await open();
    const key = await app.keyOf(session.id);
    const prompts = session.prompts()[Symbol.asyncIterator]();
    const seenV2: unknown[] = [];
    session.userMessages$.subscribe((m) => seenV2.push(m));
    const legacyId = await app.send(
      session.id,
      {
        role: 'user',
        content: { type: 'text', text: 'Fix the login bug' },
        meta: { sentFrom: 'web', permissionMode: 'default' },
      },
      key,
    );
    await session.writer.append({ role: 'user', type: 'text', text: 'typed locally (own echo)' });
    await app.send(
      session.id,
      { id: 'cmv2user000000000000001', time: Date.now(), role: 'user', type: 'text', text: 'second' },
      key,
    );
    const first = await nextPrompt(prompts);
    expect(first.text).toBe('Fix the login bug');
    expect(first.meta).toEqual({ sentFrom: 'web', permissionMode: 'default' });
    expect(first.message).toEqual({
      role: 'user',
      type: 'text',
      text: 'Fix the login bug',
      id: legacyId,
      time: expect.any(Number),
    });
    const second = await nextPrompt(prompts);
    expect(second.text).toBe('second');
    expect(seenV2.map((m) => (m as { text: string }).text)).toEqual(['Fix the login bug', 'second']);
  });

  test('prompts end when the session closes', async () => {
    const session = await connect({ server: account.relay.url, credentials: account.credentials });
    const collected: string[] = [];
    const loop = (async () => {
      for await (const prompt of session.prompts()) collected.push(prompt.text);
    })();
    // Listening before the send: the message may arrive before the app's POST is answered.
    const received = firstValueFrom(session.userMessages$);
    await app.send(session.id, { role: 'user', content: { type: 'text', text: 'one' } }, session.key);
    await received;
    await session.close();
    await loop;
    expect(collected).toEqual(['one']);
  });

  test("metadata updates merge with the app's writes on version mismatch, never clobbering them", async () => {
    // No gates: they would take the pick and write the mode themselves (test/permissions).
    const session = await open({ permissions: false });
    const key = await app.keyOf(session.id);
    // The app picks a permission mode (read-modify-write on its side).
    const row = await app.session(session.id);
    const current = (await app.decrypt(row.metadata, key)) as Record<string, unknown>;
    const { encryptRecordBase64 } = await import('happy-session/internal');
    const ack = (await app.socket.emitWithAck('update-metadata', {
      sid: session.id,
      metadata: await encryptRecordBase64({ ...current, permissionMode: 'plan' }, key),
      expectedVersion: row.metadataVersion,
    })) as { result: string; version: number };
    expect(ack).toMatchObject({ result: 'success', version: 1 });
    const adopted = firstValueFrom(
      session.state.changes$.pipe(filter((c) => c.field === 'metadata' && c.version === 2)),
    );
    const result = await session.state.updateMetadata((m) => ({
      ...m,
      summary: { text: 'Renamed', updatedAt: 1 },
    }));
    expect(result).toMatchObject({ permissionMode: 'plan', summary: { text: 'Renamed' } });
    expect(session.state.metadataVersion).toBe(2);
    await adopted;
    const stored = (await app.decrypt((await app.session(session.id)).metadata, key)) as Record<
      string,
      unknown
    >;
    expect(stored).toMatchObject({
      permissionMode: 'plan',
      summary: { text: 'Renamed' },
      path: process.cwd(),
    });
  });

  test('an update-session is adopted only when newer', async () => {
    const session = await open();
    const seen = firstValueFrom(
      session.state.changes$.pipe(filter((c) => c.field === 'agentState' && c.version === 2)),
    );
    // Another writer (the app's side) stores version 2.
    const key = await app.keyOf(session.id);
    const { encryptRecordBase64 } = await import('happy-session/internal');
    const written = {
      ...session.state.agentState,
      requests: { t1: { tool: 'Bash', arguments: {}, createdAt: 1 } },
    };
    const ack = (await app.socket.emitWithAck('update-state', {
      sid: session.id,
      agentState: await encryptRecordBase64(written, key),
      expectedVersion: 1,
    })) as { result: string };
    expect(ack).toMatchObject({ result: 'success' });
    await seen;
    expect(session.state.agentState).toEqual({
      controlledByUser: false,
      promptsTakenThrough: 0,
      streamFormat: 'v2',
      writerLease: expect.objectContaining({ pid: process.pid }),
      requests: { t1: { tool: 'Bash', arguments: {}, createdAt: 1 } },
    });
    expect(session.state.agentStateVersion).toBe(2);
  });

  test('opening an existing session by id unwraps its key and continues its stream', async () => {
    const first = await connect({
      server: account.relay.url,
      credentials: account.credentials,
      archiveOnClose: false,
      title: 'resumable',
    });
    const turn = first.turn();
    turn.text('before');
    turn.end();
    await first.close();
    const again = await open({ sessionId: first.id });
    expect(again.state.metadata).toMatchObject({ summary: { text: 'resumable' } });
    const t2 = again.turn();
    t2.text('after');
    t2.end();
    await again.writer.flush();
    const texts = (await again.reader.messages()).flatMap((m) => (m.type === 'text' ? [m.text] : []));
    expect(texts).toEqual(['before', 'after']);
  });

  test('legacy credentials make a legacy session (dataEncryptionKey null, secretbox records)', async () => {
    const session = await open({
      credentials: { kind: 'legacy', masterSecret: account.masterSecret, token: account.token },
    });
    expect(session.key.variant).toBe('legacy');
    const row = await app.session(session.id);
    expect(row.dataEncryptionKey).toBeNull();
    expect(await app.decrypt(row.metadata, { variant: 'legacy', key: account.masterSecret })).toMatchObject({
      host: expect.any(String),
    });
  });

  test('dataKey credentials wrap the session key to the content public key the app can open', async () => {
    const session = await open({
      credentials: {
        kind: 'dataKey',
        contentPublicKey: deriveAccountKeys(account.masterSecret).content.publicKey,
        machineKey: randomBytes(32),
        token: account.token,
      },
    });
    const key = await app.keyOf(session.id);
    expect(Buffer.from(key.key).equals(Buffer.from(session.key.key))).toBe(true);
  });

  test('push events reach the server and the app sees the session-event', async () => {
    const session = await open();
    const event = new Promise<unknown>((resolve) => app.socket.once('ephemeral', resolve));
    await session.push.push({ kind: 'done', title: "It's ready!", body: 'Session' });
    expect(await event).toMatchObject({ type: 'session-event', sessionId: session.id, kind: 'done' });
  });

  test('close() delivers what was appended, ends the session and archives it', async () => {
    const session = await connect({ server: account.relay.url, credentials: account.credentials });
    const turn = session.turn();
    for (let i = 0; i < 120; i++) turn.text(`line ${i}`);
    await session.close();
    const key = await app.keyOf(session.id);
    const row = await app.session(session.id);
    expect(row.active).toBe(false);
    const { messages } = await account.http.request<{ messages: { content: { c: string } }[] }>(
      'GET',
      `/v3/sessions/${session.id}/messages?after_seq=0&limit=500`,
    );
    expect(messages).toHaveLength(122);
    expect(await app.decrypt(messages[121]!.content.c, key)).toMatchObject({
      type: 'turn-end',
      status: 'cancelled',
    });
  });
});
