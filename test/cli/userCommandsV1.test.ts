import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RELAY_INFO_PATH } from 'happy-session/internal';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { READING_ORDERS, appReads } from '../helpers/happyAppModel.js';
import type { AppRecord } from '../helpers/happyAppModel.js';
import { FaultProxy } from '../helpers/faultProxy.js';
import { AppClient } from '../transport/appClient.js';
import { cli, relayHome } from './helpers.js';
import type { RelayHome } from './helpers.js';

/**
 * `happy-session attach` and `send --file` against a server that is not the embedded relay (it
 * does not describe itself, as a Happy server does not): the CLI writes v1, and what it writes is
 * what today's app shows, checked with the app model in every reading order (issue 27).
 */
let env: RelayHome;
let proxy: FaultProxy;
let agent: Session;
let app: AppClient;

beforeEach(async () => {
  env = await relayHome();
  // In front of the relay, a server that answers the relay's own path 404, as a Happy server does.
  proxy = await new FaultProxy(env.relay.url, (request) =>
    request.url.startsWith(RELAY_INFO_PATH)
      ? { kind: 'answer', status: 404, body: { error: 'Not found' } }
      : { kind: 'forward' },
  ).start();
  agent = await connect({
    server: proxy.url,
    credentials: env.credentials,
    title: 'A Happy-server agent',
    shutdownSignals: false,
  });
  app = await AppClient.open(env.relay.url, env.http, env.token, env.masterSecret);
});
afterEach(async () => {
  app.close();
  await agent.close({ archive: false });
  await proxy.close();
  await env.close();
});

async function appRecords(sessionId: string): Promise<AppRecord[]> {
  const key = await app.keyOf(sessionId);
  const { messages } = await env.http.request<{
    messages: { seq: number; createdAt: number; content: { c: string } }[];
  }>('GET', `/v3/sessions/${sessionId}/messages?after_seq=0&limit=500`);
  return Promise.all(
    messages.map(async (m) => ({
      record: await app.decrypt(m.content.c, key),
      seq: m.seq,
      createdAt: m.createdAt,
    })),
  );
}

describe('the CLI on a Happy server (v1)', () => {
  it('attach and send --file write records today’s app shows: the photo as an image, the file as a line', async () => {
    expect(agent.format).toBe('v1');
    const photo = join(env.home, 'screen.png');
    writeFileSync(
      photo,
      await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 200, g: 0, b: 0 } } })
        .png()
        .toBuffer(),
    );
    const notes = join(env.home, 'notes.md');
    writeFileSync(notes, '# Notes\n');
    const run = (...argv: string[]) =>
      cli([...argv, '--server', proxy.url], { env: { HAPPY_HOME_DIR: env.home } });

    expect((await run('attach', agent.id, photo, notes, '--text', 'Here they are.')).code).toBe(0);
    expect((await run('send', agent.id, 'see the screenshot', '--file', photo)).code).toBe(0);

    const records = await appRecords(agent.id);
    // v1 records, not v2 messages: every record is the app's `session` envelope or a legacy one.
    expect(records.every((r) => typeof (r.record as { role?: unknown }).role === 'string')).toBe(true);
    expect(records.some((r) => (r.record as { type?: unknown }).type !== undefined)).toBe(false);
    for (const order of READING_ORDERS) {
      const screen = appReads(records, {}, order);
      expect(screen.dropped, order).toBe(0);
      const images = screen.tools.filter((t) => t.image).map((t) => t.image!.caption);
      expect(images, order).toEqual(['screen.png', 'screen.png']);
      const texts = screen.rows.map((r) =>
        'text' in r ? r.text : r.kind === 'tool' ? `tool ${r.tool.name}` : '',
      );
      expect(texts.join('\n'), order).toContain('notes.md');
      expect(texts, order).toContain('Here they are.');
      expect(texts, order).toContain('see the screenshot');
    }
  }, 60_000);
});
