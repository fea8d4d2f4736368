/**
 * One contract, every transport: the same scenarios run against MemoryTransport and against
 * HappyServerTransport on the embedded relay (real HTTP, real socket.io). Set HAPPY_SERVER_URL
 * (plus credentials in HAPPY_HOME_DIR) to run them against any Happy-compatible server too; see
 * docs/transport.md.
 */
import { filter, firstValueFrom, map, take, tap, toArray } from 'rxjs';
import type { Observable } from 'rxjs';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { SdkError, SessionReader, SessionWriter, fold, silentLogger, MemoryTransport } from 'happy-session';
import { PermissionGate } from 'happy-session/permissions';
import type { SessionMessage, ReaderEvent, Transport } from 'happy-session';
import type { Relay } from 'happy-session-relay';
import { startRelay } from 'happy-session-relay';
import { connect, listSessions, loadCredentials, HappyServerTransport } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import {
  HappyHttp,
  formatShownBy,
  mintToken,
  createSessionRecord,
  encryptRecordBase64,
} from 'happy-session/internal';
import { decryptRecord } from 'happy-session/crypto';
import type { Credentials } from 'happy-session/node';
import { RELAY_INFO_PATH } from 'happy-session/internal';
import type { RecordKey } from 'happy-session/crypto';
import { generateDataKey } from 'happy-session/crypto';
import type { StoredRecord } from 'happy-session/ports';
import { until } from '../helpers/until.js';
import { accountOn, appSocket } from './helpers.js';

/** One session's transports, as a test needs them. */
interface Harness {
  readonly transport: Transport;
  readonly key: RecordKey;
  /** Another client of the same session. */
  other(): Promise<Transport>;
  close(): Promise<void>;
}

interface Target {
  readonly name: string;
  setup(): Promise<void>;
  teardown(): Promise<void>;
  session(): Promise<Harness>;
  /** For a server: where `connect()` goes, as which account (after `setup()`). */
  readonly access?: () => { readonly url: string; readonly credentials: Credentials; readonly token: string };
}

const memoryTarget: Target = {
  name: 'MemoryTransport',
  setup: async () => {},
  teardown: async () => {},
  session: async () => {
    const transport = new MemoryTransport();
    return {
      transport,
      key: { variant: 'dataKey', key: generateDataKey() },
      other: async () => transport,
      close: async () => {},
    };
  },
};

function serverTarget(
  name: string,
  start: () => Promise<{ url: string; credentials: Credentials; stop?: () => Promise<void> }>,
): Target {
  let url = '';
  let credentials: Credentials;
  let token = '';
  let stop: (() => Promise<void>) | undefined;
  return {
    name,
    setup: async () => {
      const started = await start();
      url = started.url;
      credentials = started.credentials;
      stop = started.stop;
      token =
        credentials.token ??
        (credentials.kind === 'master'
          ? await mintToken(new HappyHttp({ serverUrl: url }), credentials.masterSecret)
          : '');
    },
    teardown: async () => {
      await stop?.();
    },
    access: () => ({ url, credentials, token }),
    session: async () => {
      const http = new HappyHttp({ serverUrl: url, token });
      const record = await createSessionRecord(http, credentials, {
        path: '/contract',
        host: 'contract-suite',
      });
      const opened: HappyServerTransport[] = [];
      const open = async (): Promise<HappyServerTransport> => {
        const t = new HappyServerTransport({ serverUrl: url, token, sessionId: record.id });
        opened.push(t);
        await t.ready();
        return t;
      };
      const transport = await open();
      return {
        transport,
        key: record.key,
        other: open,
        close: async () => {
          await Promise.all(opened.map((t) => t.close()));
        },
      };
    },
  };
}

let relay: Relay | undefined;
const targets: Target[] = [
  memoryTarget,
  serverTarget('HappyServerTransport on the relay', async () => {
    relay = await startRelay();
    const account = await accountOn(relay.url);
    return { url: relay.url, credentials: account.credentials, stop: () => relay!.close() };
  }),
];
const externalUrl = process.env.HAPPY_SERVER_URL;
if (externalUrl) {
  targets.push(
    serverTarget(`HappyServerTransport on ${externalUrl}`, async () => ({
      url: externalUrl.replace(/\/+$/, ''),
      credentials: loadCredentials(),
    })),
  );
}

function records(count: number, prefix = 'r'): { localId: string; content: string }[] {
  return Array.from({ length: count }, (_, i) => ({
    localId: `${prefix}-${i}-${Math.random().toString(36).slice(2)}`,
    content: Buffer.from(`ciphertext ${prefix} ${i}`).toString('base64'),
  }));
}

async function readAll(transport: Transport): Promise<StoredRecord[]> {
  const all: StoredRecord[] = [];
  let cursor = 0;
  for (;;) {
    const page = await transport.read(cursor, { limit: 500 });
    all.push(...page.records);
    if (!page.hasMore || page.records.length === 0) return all;
    cursor = page.records[page.records.length - 1]!.seq;
  }
}

/** A transport whose live hints skip some records, as after a dropped socket. */
function withLostHints(inner: Transport, keep: (record: StoredRecord) => boolean): Transport {
  return {
    append: (batch) => inner.append(batch),
    read: (after, options) => inner.read(after, options),
    records$: inner.records$.pipe(filter(keep)),
    ...(inner.resync$ ? { resync$: inner.resync$ } : {}),
  };
}

describe.each(targets)('Transport contract: $name', (target) => {
  let h: Harness;
  beforeAll(() => target.setup());
  afterAll(() => target.teardown());
  beforeEach(async () => {
    h = await target.session();
  });
  afterEach(() => h.close());

  test('append stores a batch in order with consecutive seqs from 1, read returns it', async () => {
    const batch = records(3);
    const acks = await h.transport.append(batch);
    expect(acks.map((a) => a.seq)).toEqual([1, 2, 3]);
    expect(acks.map((a) => a.localId)).toEqual(batch.map((r) => r.localId));
    const page = await h.transport.read(0);
    expect(page.hasMore).toBe(false);
    expect(page.records.map((r) => [r.seq, r.localId, r.content])).toEqual(
      batch.map((r, i) => [i + 1, r.localId, r.content]),
    );
  });

  test('reads page by page with hasMore, ascending after a cursor', async () => {
    const all = records(250);
    for (let i = 0; i < all.length; i += 100) await h.transport.append(all.slice(i, i + 100));
    const first = await h.transport.read(0, { limit: 100 });
    expect(first.records.map((r) => r.seq)).toEqual(Array.from({ length: 100 }, (_, i) => i + 1));
    expect(first.hasMore).toBe(true);
    const last = await h.transport.read(200, { limit: 100 });
    expect(last.records.map((r) => r.seq)).toEqual(Array.from({ length: 50 }, (_, i) => i + 201));
    expect(last.hasMore).toBe(false);
    expect(await h.transport.read(250)).toEqual({ records: [], hasMore: false });
    expect((await readAll(h.transport)).map((r) => r.localId)).toEqual(all.map((r) => r.localId));
  });

  test('localId is an idempotency key: within a batch and across retries nothing is stored twice', async () => {
    const [a, b] = records(2);
    const first = await h.transport.append([a!, { ...a!, content: 'QUFBQQ==' }, b!]);
    expect(first.map((x) => [x.localId, x.seq])).toEqual([
      [a!.localId, 1],
      [b!.localId, 2],
    ]);
    const retry = await h.transport.append([a!, b!]);
    expect(retry.map((x) => [x.localId, x.seq])).toEqual([
      [a!.localId, 1],
      [b!.localId, 2],
    ]);
    const stored = await readAll(h.transport);
    expect(stored.map((r) => [r.seq, r.content])).toEqual([
      [1, a!.content],
      [2, b!.content],
    ]);
  });

  test('a batch of more than 100 records is refused as transport.rejected', async () => {
    const error = await h.transport.append(records(101)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SdkError);
    expect((error as SdkError).code).toBe('transport.rejected');
    expect((await h.transport.read(0)).records).toEqual([]);
  });

  test("records$ hints every stored record, the writer's own included", async () => {
    const seen = firstValueFrom(h.transport.records$.pipe(take(3), toArray()));
    const batch = records(3);
    await h.transport.append(batch);
    expect((await seen).map((r) => [r.seq, r.localId, r.content])).toEqual(
      batch.map((r, i) => [i + 1, r.localId, r.content]),
    );
  });

  test('a live reader catches up over gaps in the hints: every record once, in order', async () => {
    const writer = new SessionWriter({ transport: h.transport, key: h.key, outbox: { maxBatch: 7 } });
    const lossy = withLostHints(await h.other(), (r) => r.seq % 3 !== 0 && r.seq % 5 !== 1);
    const reader = new SessionReader({ transport: lossy, key: h.key });
    const events = firstValueFrom((reader.events$() as Observable<ReaderEvent>).pipe(take(60), toArray()));
    const written: SessionMessage[] = [];
    writer.messages$.subscribe((m) => written.push(m));
    const turn = writer.turn();
    for (let i = 0; i < 58; i++) {
      turn.text(`line ${i}`);
      if (i % 10 === 0) await writer.flush();
    }
    turn.end();
    await writer.flush();
    const got = await events;
    expect(got.map((e) => e.seq)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    expect(got.map((e) => (e.kind === 'message' ? e.message : e))).toEqual(written);
  });

  test('a live reader reads the last record although its hint is lost (the tail check): every record once, in order, 50 runs', async () => {
    const RUNS = 50;
    const last = 5;
    const runs = await Promise.all(
      Array.from({ length: RUNS }, async (_, run) => {
        const session = run === 0 ? h : await target.session();
        try {
          const writer = new SessionWriter({ transport: session.transport, key: session.key });
          const written: SessionMessage[] = [];
          writer.messages$.subscribe((m) => written.push(m));
          const lossy = withLostHints(await session.other(), (r) => r.seq !== last);
          let taken = 0;
          const events = firstValueFrom(
            new SessionReader({ transport: lossy, key: session.key }).events$().pipe(
              tap(() => taken++),
              take(last),
              toArray(),
            ),
          );
          const turn = writer.turn();
          await turn.started;
          while (taken < 1) await new Promise((resolve) => setTimeout(resolve, 5));
          // One batch: the last record is stored before the hint of the one before it arrives.
          for (let i = 0; i < last - 2; i++) turn.text(`text ${i}`);
          turn.end();
          await writer.flush();
          const got = await events;
          return { got, written };
        } finally {
          if (run !== 0) await session.close();
        }
      }),
    );
    // What was read and in what order, not how fast (docs/transport.md, "Live reading").
    for (const { got, written } of runs) {
      expect(got.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
      expect(got.map((e) => (e.kind === 'message' ? e.message : e))).toEqual(written);
    }
  }, 60_000);

  test.each(['stream', 'local'] as const)(
    'a permission request answered %s has exactly one permission-response stored',
    async (channel) => {
      const writer = new SessionWriter({ transport: h.transport, key: h.key });
      const app = new SessionWriter({ transport: await h.other(), key: h.key });
      const reader = new SessionReader({ transport: await h.other(), key: h.key });
      const incoming = reader.events$({ afterSeq: 0 }).pipe(
        filter((e) => e.kind === 'message'),
        map((e) => (e.kind === 'message' ? { message: e.message, seq: e.seq } : (undefined as never))),
      );
      const gate = await PermissionGate.create({ writer, incoming });
      try {
        const turn = writer.turn();
        const call = turn.toolCall({ toolName: 'Bash', args: { command: 'make deploy' } });
        const decision = call.requestPermission();
        // The request is stored before anyone answers it.
        await writer.flush();
        if (channel === 'stream') {
          const request = (await reader.messages()).find((m) => m.type === 'permission-request')!;
          await app.append({
            role: 'user',
            type: 'permission-response',
            callId: call.callId,
            optionId: 'allow-once',
            requestId: request.id,
          });
        } else {
          gate.answer({ callId: call.callId, optionId: 'allow-once' });
        }
        expect(await decision).toMatchObject({ outcome: 'allow', via: channel });
        call.end();
        turn.end();
        await writer.flush();
        const stored = await new SessionReader({ transport: await h.other(), key: h.key }).messages();
        expect(stored.filter((m) => m.type === 'permission-response')).toHaveLength(1);
      } finally {
        gate.dispose();
        await writer.close();
        await app.close();
      }
    },
  );

  test('writer and reader end to end: what was written reads back, typed, in append order', async () => {
    const writer = new SessionWriter({ transport: h.transport, key: h.key });
    const written: SessionMessage[] = [];
    writer.messages$.subscribe((m) => written.push(m));
    const turn = writer.turn();
    turn.thinking('planning');
    const call = turn.toolCall({ toolName: 'bash', title: 'List files', args: { command: 'ls' } });
    call.scope().text('nested output');
    call.end();
    turn.text('done');
    turn.end();
    await writer.close();
    const reader = new SessionReader({ transport: await h.other(), key: h.key });
    const read = await reader.readAll();
    expect(read.every((e) => e.kind === 'message')).toBe(true);
    expect(read.map((e) => (e.kind === 'message' ? e.message : null))).toEqual(written);
    expect(written.map((m) => m.type)).toEqual([
      'turn-start',
      'text',
      'tool-call-start',
      'text',
      'tool-call-end',
      'text',
      'turn-end',
    ]);
  });
});

if (externalUrl) {
  // What connect({format: 'auto'}) relies on, on the server under test (docs/wire.md §0): a Happy
  // server does not have the relay's self-description, so v1 is written there for today's app.
  describe(`format detection on ${externalUrl}`, () => {
    test("the server answers the relay's path with 404, so 'auto' writes v1", async () => {
      const http = new HappyHttp({ serverUrl: externalUrl.replace(/\/+$/, '') });
      await expect(http.request('GET', RELAY_INFO_PATH)).rejects.toMatchObject({
        code: 'transport.not_found',
      });
      expect(await formatShownBy(http, silentLogger)).toBe('v1');
    });
  });
}

/**
 * One live writer per session, and its successor (docs/writer-lease.md, docs/recovery.md), on every
 * server: `connect()` sessions of this process, each with its own socket, written in v2 so the
 * stream reads the same on the relay and on a Happy server.
 */
describe.each(targets.filter((t) => t.access))('Session contract: $name', (target) => {
  let opened: Array<{ close(): Promise<void> }> = [];
  beforeAll(() => target.setup());
  afterAll(() => target.teardown());
  afterEach(async () => {
    for (const o of opened.reverse()) await o.close().catch(() => undefined);
    opened = [];
  });

  async function open(options: { sessionId?: string; takeOver?: boolean } = {}): Promise<Session> {
    const { url, credentials } = target.access!();
    const session = await connect({
      server: url,
      credentials,
      format: 'v2',
      title: 'session contract',
      shutdownSignals: false,
      archiveOnClose: false,
      ...options,
    });
    opened.push(session);
    return session;
  }

  /** The app's side: calls `method` of the session by RPC; the decrypted result, or the `{ok:false}` error. */
  async function callAsApp(session: Session, method: string): Promise<unknown> {
    const { url, token } = target.access!();
    const socket = await appSocket(url, token);
    try {
      const answer = (await socket.timeout(20_000).emitWithAck('rpc-call', {
        method: `${session.id}:${method}`,
        params: await encryptRecordBase64({}, session.key),
      })) as { ok: boolean; result?: string; error?: string };
      if (!answer.ok) throw new Error(answer.error);
      const opened = await decryptRecord(answer.result ?? '', session.key);
      return opened.ok ? opened.value : opened.error;
    } finally {
      socket.disconnect();
    }
  }

  test('lease: a second connect() while the holder is live is session.in_use; takeOver tells the holder, settles its request, and the RPC follows', async () => {
    const first = await open();
    first.rpc.register('whoami', () => 'first');
    const turn = first.turn();
    const call = turn.toolCall({ toolName: 'Bash', title: 'Deploy', args: { command: 'make deploy' } });
    // Its outcome is taken as it comes: it settles while the take-over is under way.
    const asked = call.requestPermission().then(
      (decision) => decision,
      (error: unknown) => error,
    );
    const question = turn
      .ask([{ id: 'db', question: 'Which database?', options: ['Postgres', 'SQLite'] }])
      .then(
        (result) => result,
        (error: unknown) => error,
      );
    await first.writer.flush();
    expect(await callAsApp(first, 'whoami')).toBe('first');

    const refused = await open({ sessionId: first.id }).catch((e: unknown) => e);
    expect(refused).toMatchObject({
      code: 'session.in_use',
      details: { sessionId: first.id, pid: process.pid },
    });
    // Refused, it wrote nothing: the holder's request still waits.
    expect(first.gate!.pendingCallIds).toEqual([call.callId]);

    const second = await open({ sessionId: first.id, takeOver: true });
    second.rpc.register('whoami', () => 'second');
    expect(await asked).toMatchObject({ code: 'session.taken_over' });
    expect(await question).toMatchObject({ code: 'session.taken_over' });
    await first.closed;
    expect(first.signal.reason).toMatchObject({ code: 'session.taken_over' });
    expect(() => first.writer.service('after')).toThrow(
      expect.objectContaining({ code: 'session.taken_over' }),
    );
    await expect(first.state.updateAgentState((s) => s)).rejects.toMatchObject({
      code: 'session.taken_over',
    });
    expect(await callAsApp(second, 'whoami')).toBe('second');
    // The new holder ended what the first left open, as a successor does.
    expect(second.interrupted.calls.map((c) => c.callId)).toEqual([call.callId]);
    expect(fold(await second.reader.messages()).turn(turn.id)).toMatchObject({ status: 'cancelled' });
  });

  test('close() ends the session: listed active while open, inactive once closed (session-end, not a sweep)', async () => {
    const { url, token, credentials } = target.access!();
    const http = new HappyHttp({ serverUrl: url, token });
    const listed = async (id: string) => (await listSessions(http, credentials)).find((s) => s.id === id);
    const session = await open();
    session.turn().text('working');
    await session.writer.flush();
    // Positive control: the open session is listed, and active.
    expect(await listed(session.id)).toMatchObject({ active: true });
    await session.close();
    // A Happy server's sweep takes ten minutes; only session-end makes it inactive within the wait.
    await until(async () => (await listed(session.id))?.active === false, {
      intervalMs: 100,
      what: `session ${session.id} listed inactive after close()`,
    });
  });

  test('successor: a holder gone without closing is succeeded at once; its turn ends with the reason and its call is handed over', async () => {
    const first = await open();
    const turn = first.turn();
    const call = turn.toolCall({ toolName: 'Bash', title: 'Deploy', args: { command: 'make deploy' } });
    void call.requestPermission().catch(() => undefined);
    await first.writer.flush();
    await first.gate!.settled();
    // Gone without a word: no session-end, no archive, no release of the lease.
    await first.transport.close({ end: false, archive: false });

    const next = await open({ sessionId: first.id });
    expect(next.interrupted.calls).toMatchObject([{ callId: call.callId, state: 'asking' }]);
    await next.writer.flush();
    const messages = await next.reader.messages();
    expect(messages.filter((m) => m.type === 'turn-end' && m.turn === turn.id)).toMatchObject([
      { status: 'cancelled', reason: 'The agent restarted.' },
    ]);
    // Positive control: the successor holds the session now, so a third process is refused.
    await expect(open({ sessionId: first.id })).rejects.toMatchObject({ code: 'session.in_use' });
  });
});
