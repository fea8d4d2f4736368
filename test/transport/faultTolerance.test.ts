/**
 * Delivery survives crashes: while a writer appends 5,000 messages, the relay (a child process on
 * a fixed port and data dir) is SIGKILLed and restarted three times and the socket is dropped
 * twice. A fresh reader then finds all 5,000 exactly once, in append order.
 */
import { filter, firstValueFrom } from 'rxjs';
import { afterAll, expect, test } from 'vitest';
import { SessionReader } from 'happy-session';
import { connect, HappyServerTransport } from 'happy-session/node';
import { accountOn, tempDir } from './helpers.js';
import { RelayChild, freePort } from './relayChild.js';

const TOTAL = 5000;
const data = tempDir('relay-fault-');
let relay: RelayChild | undefined;
afterAll(async () => {
  await relay?.kill();
  data.remove();
});

test('SIGKILL ×3 and socket drops ×2 during 5,000 appends: nothing lost, nothing duplicated, order kept', async () => {
  const port = await freePort();
  relay = await RelayChild.start(port, data.path);
  const url = relay.url;
  const { credentials, token } = await accountOn(url);
  const session = await connect({
    server: url,
    credentials,
    archiveOnClose: false,
    outbox: { highWaterMark: 300, retryDelayMs: 50, maxRetryDelayMs: 400 },
    reconnectionDelayMs: 100,
    reconnectionDelayMaxMs: 400,
    httpTimeoutMs: 5000,
  });
  let reconnects = 0;
  session.transport.reconnected$.pipe(filter((c) => c.reconnect)).subscribe(() => reconnects++);

  // Faults fire as delivery progresses, so they always land while appends are in flight.
  const faults: Array<{ at: number; run: () => Promise<void>; kind: string }> = [
    { at: 700, kind: 'kill', run: restart },
    { at: 1500, kind: 'drop', run: async () => session.transport.socket.dropConnection() },
    { at: 2300, kind: 'kill', run: restart },
    { at: 3100, kind: 'drop', run: async () => session.transport.socket.dropConnection() },
    { at: 3900, kind: 'kill', run: restart },
  ];
  const fired: Promise<void>[] = [];
  let delivered = 0;
  // Each fault must meet a connected socket, or two faults fold into one outage: after one fires,
  // the producer waits for the reconnect before it appends more (the outbox keeps delivering).
  let reconnected: Promise<unknown> | undefined;
  async function restart(): Promise<void> {
    await relay!.kill();
    relay = await RelayChild.start(port, data.path);
  }
  const onDelivered = (): void => {
    delivered++;
    if (reconnected || faults.length === 0 || delivered < faults[0]!.at) return;
    reconnected = firstValueFrom(session.transport.reconnected$.pipe(filter((c) => c.reconnect)));
    fired.push(faults.shift()!.run());
  };

  const turn = session.turn();
  const texts: string[] = [];
  for (let i = 0; i < TOTAL; i++) {
    if (reconnected) {
      await reconnected;
      reconnected = undefined;
    }
    await session.writer.ready();
    const text = `message ${i}`;
    texts.push(text);
    void turn.text(text).then(onDelivered);
  }
  turn.end();
  await session.writer.flush();
  await Promise.all(fired);
  await reconnected;
  expect(faults).toEqual([]);
  await session.close({ archive: false });

  const fresh = new HappyServerTransport({ serverUrl: url, token, sessionId: session.id });
  const events = await new SessionReader({ transport: fresh, key: session.key }).readAll();
  await fresh.close({ end: false, archive: false });
  const stored = events.flatMap((e) =>
    e.kind === 'message' && e.message.type === 'text' ? [e.message.text] : [],
  );
  const distinct = new Set(stored);
  const figures = {
    appended: TOTAL,
    stored: stored.length,
    lost: texts.filter((t) => !distinct.has(t)).length,
    duplicated: stored.length - distinct.size,
    relayKills: 3,
    socketDrops: 2,
    reconnects,
  };
  console.log('fault test figures', figures);
  expect(events.every((e) => e.kind === 'message')).toBe(true);
  expect(figures.lost).toBe(0);
  expect(figures.duplicated).toBe(0);
  expect(stored).toEqual(texts);
  expect(events.map((e) => e.seq)).toEqual(Array.from({ length: TOTAL + 2 }, (_, i) => i + 1));
  expect(reconnects).toBeGreaterThanOrEqual(5);
}, 180_000);
