import assert from 'node:assert';
import { readFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fold } from 'happy-session';
import { thumbhashFromImage } from 'happy-session/media';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { relayWithAccount, tempDir } from '../../test/transport/helpers.js';
import type { RelayAccount } from '../../test/transport/helpers.js';
import { runMediaBot } from './mediaBot.js';
import { onePagePdf } from './samples.js';

let account: RelayAccount;
let session: Session;
let work: { path: string; remove: () => void };

beforeEach(async () => {
  account = await relayWithAccount();
  session = await connect({ server: account.relay.url, credentials: account.credentials });
  work = tempDir('happy-media-bot-test-');
});
afterEach(async () => {
  await session.close();
  await account.relay.close();
  work.remove();
});

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

describe('media-bot example', () => {
  it('sends a photo, a video and a PDF between texts, each fetched back byte for byte', async () => {
    const files = await runMediaBot(session, work.path);
    const png = await readFile(files.photo);
    const mp4 = await readFile(files.video);
    const pdf = await readFile(files.pdf);

    const messages = await session.reader.messages();
    const turn = fold(messages).turn(files.turnId)!;
    expect(turn.status).toBe('completed');
    const sent = turn.children.flatMap((c) => (c.kind === 'message' ? [c.message] : []));
    expect(sent.map((m) => m.type)).toEqual([
      'text',
      'text',
      'photo',
      'text',
      'video',
      'text',
      'file',
      'text',
    ]);
    const [photo, video, file] = [sent[2]!, sent[4]!, sent[6]!];

    expect(photo).toMatchObject({
      type: 'photo',
      role: 'agent',
      width: 320,
      height: 200,
      thumbhash: await thumbhashFromImage(png),
    });
    expect(video).toMatchObject({
      type: 'video',
      role: 'agent',
      width: 320,
      height: 240,
      mimeType: 'video/mp4',
      size: mp4.length,
    });
    assert(video.type === 'video');
    expect(video.thumbhash).toMatch(BASE64);
    expect(video.durationMs).toBeGreaterThanOrEqual(960);
    expect(video.durationMs).toBeLessThanOrEqual(1100);
    expect(file).toMatchObject({
      type: 'file',
      role: 'agent',
      name: 'report.pdf',
      mimeType: 'application/pdf',
      size: pdf.length,
    });

    expect((await session.fetchMedia(photo)).equals(png)).toBe(true);
    expect((await session.fetchMedia(video)).equals(mp4)).toBe(true);
    expect((await session.fetchMedia(file)).equals(pdf)).toBe(true);
  });

  it("the hand-written PDF's cross-reference table points at its objects", () => {
    const pdf = onePagePdf('Costs (2024) \\ plan').toString('latin1');

    const startxref = Number(/startxref\n(\d+)\n%%EOF\n$/.exec(pdf)?.[1]);
    expect(pdf.startsWith('xref\n0 6\n', startxref)).toBe(true);
    const offsets = [...pdf.slice(startxref).matchAll(/^(\d{10}) 00000 n $/gm)].map((m) => Number(m[1]));
    expect(offsets).toHaveLength(5);
    offsets.forEach((offset, i) => expect(pdf.startsWith(`${i + 1} 0 obj\n`, offset)).toBe(true));
    const stream = /<< \/Length (\d+) >>\nstream\n([^]*?)\nendstream/.exec(pdf)!;
    expect(stream[2]!.length).toBe(Number(stream[1]));
    expect(stream[2]).toContain('(Costs \\(2024\\) \\\\ plan) Tj');
  });
});
