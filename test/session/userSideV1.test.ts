import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Account, connect } from 'happy-session/node';
import { READING_ORDERS, appReads } from '../helpers/happyAppModel.js';
import type { AppAgentState, AppRecord } from '../helpers/happyAppModel.js';
import { AppClient } from '../transport/appClient.js';
import { relayWithAccount, tempDir } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';

/**
 * `happy-session attach` and `send --file` on a v1 session (what a Happy server gets, issue 27):
 * the user side writes what today's app shows, checked with the app model, in every reading order.
 * `Account.session()` picks v1 on a Happy server as `connect()` does; here it is asked for.
 */
let account: RelayAccount;
let app: AppClient;
const work = tempDir('happy-user-v1-');

beforeAll(async () => {
  account = await relayWithAccount();
  app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
});
afterAll(async () => {
  app.close();
  await account.relay.close();
  work.remove();
});

async function appData(sessionId: string): Promise<{ records: AppRecord[]; agentState: AppAgentState }> {
  const key = await app.keyOf(sessionId);
  const { messages } = await account.http.request<{
    messages: { seq: number; createdAt: number; content: { c: string } }[];
  }>('GET', `/v3/sessions/${sessionId}/messages?after_seq=0&limit=500`);
  const records = await Promise.all(
    messages.map(async (m) => ({
      record: await app.decrypt(m.content.c, key),
      seq: m.seq,
      createdAt: m.createdAt,
    })),
  );
  return { records, agentState: {} };
}

describe('the user side on a v1 session', () => {
  it('attach and send --file write records today’s app shows: the photo as an image, the file as a line', async () => {
    const agent = await connect({
      format: 'v1',
      server: account.relay.url,
      credentials: account.credentials,
      title: 'A v1 agent',
    });
    const photo = join(work.path, 'screen.png');
    writeFileSync(
      photo,
      await sharp({ create: { width: 40, height: 30, channels: 3, background: { r: 200, g: 0, b: 0 } } })
        .png()
        .toBuffer(),
    );
    const notes = join(work.path, 'notes.md');
    writeFileSync(notes, '# Notes\n');
    const opened = await Account.open({ server: account.relay.url, credentials: account.credentials });
    try {
      const user = await opened.session(agent.id, { format: 'v1' });
      await user.attach([photo, notes], { text: 'Here they are.' });
      await user.send('see the screenshot', { files: [photo] });
      await user.close();
    } finally {
      await opened.close();
      await agent.close({ archive: false });
    }

    const { records, agentState } = await appData(agent.id);
    for (const order of READING_ORDERS) {
      const screen = appReads(records, agentState, order);
      expect(screen.dropped, order).toBe(0);
      const images = screen.tools.filter((t) => t.image).map((t) => t.image!.caption);
      expect(images, order).toEqual(expect.arrayContaining(['screen.png']));
      const texts = screen.rows.map((r) =>
        'text' in r ? r.text : r.kind === 'tool' ? `tool ${r.tool.name}` : '',
      );
      expect(texts.join('\n'), order).toContain('notes.md');
      expect(texts, order).toContain('Here they are.');
      expect(texts, order).toContain('see the screenshot');
    }
  }, 60_000);
});
