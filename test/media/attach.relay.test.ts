import { closeSync, createReadStream, openSync, writeSync } from 'node:fs';
import { mkdtemp, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { blobKeyFor, decryptBlob } from 'happy-session/crypto';
import { randomBytes } from 'happy-session/internal';
import { DEFAULT_MAX_MEDIA_BYTES } from 'happy-session/media';
import type { MediaMessage } from 'happy-session/media';
import type { Relay } from 'happy-session-relay';
import { startRelay } from 'happy-session-relay';
import type { AttachInput, AttachProgress } from 'happy-session';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { accountOn } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';
import { ffmpeg, ffmpegColour, gradient, solid } from './fixtures.js';
import { attachmentRequests, requestLog, storedBlobs } from './relayFixtures.js';
import type { RelayRequest } from './relayFixtures.js';

let relay: Relay;
let account: Omit<RelayAccount, 'relay'>;
let dataDir: string;
let dir: string;
let requests: RelayRequest[];
const sessions: Session[] = [];

const media: Record<string, Buffer> = {};
const PDF = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const NOTES = Buffer.from('# Notes\n\nThe build is green — ✓ — and the cache is warm.\n'.repeat(3000));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'happy-attach-'));
  dataDir = join(dir, 'relay');
  const log = requestLog();
  requests = log.requests;
  relay = await startRelay({ dataDir, logger: log.logger });
  account = await accountOn(relay.url);

  const colour = { r: 0x33, g: 0x66, b: 0xcc };
  media.png = await gradient(64, 48, { r: 255, g: 0, b: 0 }, { r: 0, g: 0, b: 255 }).png().toBuffer();
  // Stored 80x60, displayed 60x80 (EXIF orientation 6 is a quarter turn).
  media.jpeg = await solid(80, 60, colour).jpeg().withMetadata({ orientation: 6 }).toBuffer();
  media.webp = await solid(30, 20, colour).webp().toBuffer();
  media.gif = await solid(16, 12, colour).gif().toBuffer();
  const encode = ['-pix_fmt', 'yuv420p', '-c:v', 'libx264'];
  media.mp4 = await ffmpeg(
    ['-f', 'lavfi', '-i', `color=c=${ffmpegColour(colour)}:s=320x240:r=25:d=2`, ...encode],
    join(dir, 'clip.mp4'),
  );
  media.rotated = await ffmpeg(
    ['-i', join(dir, 'clip.mp4'), '-c', 'copy', '-metadata:s:v', 'rotate=90'],
    join(dir, 'rotated.mp4'),
  );
  await writeFile(join(dir, 'gradient.png'), media.png);
  await writeFile(join(dir, 'clip-copy.mp4'), media.mp4);
  await writeFile(join(dir, 'report.pdf'), PDF);
  await writeFile(join(dir, 'notes.md'), NOTES);
});
afterEach(async () => {
  await Promise.all(sessions.splice(0).map((s) => s.close()));
});
afterAll(async () => {
  await relay.close();
  await rm(dir, { recursive: true, force: true });
});

async function open(): Promise<Session> {
  const session = await connect({ server: relay.url, credentials: account.credentials });
  sessions.push(session);
  return session;
}

async function* chunksOf(bytes: Buffer): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += 7) yield bytes.subarray(i, i + 7);
}

interface Case {
  name: string;
  plaintext: () => Buffer;
  input: () => AttachInput | Promise<AttachInput>;
  options?: { name?: string; mimeType?: string };
  expected: Record<string, unknown>;
}

const cases: Case[] = [
  {
    name: 'a PNG from a path',
    plaintext: () => media.png as Buffer,
    input: () => join(dir, 'gradient.png'),
    expected: { type: 'photo', width: 64, height: 48 },
  },
  {
    name: 'a JPEG with EXIF orientation 6, as bytes: displayed sides',
    plaintext: () => media.jpeg as Buffer,
    input: () => media.jpeg as Buffer,
    expected: { type: 'photo', width: 60, height: 80 },
  },
  {
    name: 'a WebP from a Node stream',
    plaintext: () => media.webp as Buffer,
    input: async () => {
      const path = join(dir, 'small.webp');
      await writeFile(path, media.webp as Buffer);
      return createReadStream(path);
    },
    expected: { type: 'photo', width: 30, height: 20 },
  },
  {
    name: 'a GIF from an async iterable',
    plaintext: () => media.gif as Buffer,
    input: () => chunksOf(media.gif as Buffer),
    expected: { type: 'photo', width: 16, height: 12 },
  },
  {
    name: 'an MP4',
    plaintext: () => media.mp4 as Buffer,
    input: () => media.mp4 as Buffer,
    expected: { type: 'video', width: 320, height: 240, durationMs: 2000, mimeType: 'video/mp4' },
  },
  {
    name: 'an MP4 with a 90-degree rotation: displayed sides',
    plaintext: () => media.rotated as Buffer,
    input: () => media.rotated as Buffer,
    expected: { type: 'video', width: 240, height: 320, durationMs: 2000, mimeType: 'video/mp4' },
  },
  {
    name: 'an MP4 from a path (probed where it is, no temporary copy)',
    plaintext: () => media.mp4 as Buffer,
    input: () => join(dir, 'clip-copy.mp4'),
    expected: { type: 'video', width: 320, height: 240, durationMs: 2000, mimeType: 'video/mp4' },
  },
  {
    name: 'a PDF from a path, named after its file',
    plaintext: () => PDF,
    input: () => join(dir, 'report.pdf'),
    expected: { type: 'file', name: 'report.pdf', mimeType: 'application/pdf' },
  },
  {
    name: 'a Markdown file of 170 KB from a path: text, typed by its name',
    plaintext: () => NOTES,
    input: () => join(dir, 'notes.md'),
    expected: { type: 'file', name: 'notes.md', mimeType: 'text/markdown' },
  },
  {
    name: 'a PDF, with its display name',
    plaintext: () => PDF,
    input: () => PDF,
    options: { name: 'report.pdf' },
    expected: { type: 'file', name: 'report.pdf', mimeType: 'application/pdf' },
  },
];

describe('attach() through connect() on the relay', () => {
  it.each(cases)(
    '$name: uploads ciphertext, then appends the message; fetchMedia gives the bytes back',
    async (c) => {
      const session = await open();
      const plaintext = c.plaintext();
      const progress: AttachProgress[] = [];
      const turn = session.turn();
      const input = await c.input();
      const message = (await turn.attach(input, {
        ...c.options,
        onProgress: (p) => progress.push(p),
      })) as MediaMessage;

      expect(message).toMatchObject({
        role: 'agent',
        turn: turn.turnId,
        ref: expect.stringMatching(new RegExp(`^sessions/${session.id}/attachments/[0-9a-f-]{36}\\.enc$`)),
        ...c.expected,
      });
      if (message.type !== 'file') expect(message.thumbhash).toMatch(/^[A-Za-z0-9+/]+=*$/);
      if (message.type !== 'photo') expect(message.size).toBe(plaintext.length);

      // The stored stream holds the same message, right after turn-start.
      await session.writer.flush();
      const stored = await session.reader.messages();
      expect(stored.map((m) => m.type)).toEqual(['turn-start', c.expected.type]);
      expect(stored[1]).toEqual(message);

      // The relay holds ciphertext only: 40 bytes longer, no run of plaintext, opens with the blob key.
      const file = message.ref.split('/').pop() as string;
      const blob = (await storedBlobs(dataDir, session.id)).get(file) as Buffer;
      expect(blob.length).toBe(plaintext.length + 40);
      expect(blob.includes(plaintext.subarray(0, Math.min(32, plaintext.length)))).toBe(false);
      const opened = decryptBlob(blob, blobKeyFor(session.key));
      expect(opened.ok && Buffer.from(opened.value).equals(plaintext)).toBe(true);

      expect((await session.fetchMedia(message)).equals(plaintext)).toBe(true);

      const total = plaintext.length + 40;
      // Phases in order, each once it starts; nothing needed compressing.
      expect([...new Set(progress.map((p) => p.phase))]).toEqual(['probe', 'encrypt', 'upload']);
      const sizes = { originalBytes: plaintext.length, finalBytes: plaintext.length };
      const uploads = progress.filter((p) => p.phase === 'upload');
      expect(uploads[0]).toEqual({ phase: 'upload', sent: 0, total, ...sizes });
      expect(uploads.at(-1)).toEqual({ phase: 'upload', sent: total, total, ...sizes });
      for (let i = 1; i < uploads.length; i++) {
        expect(uploads[i]?.sent).toBeGreaterThanOrEqual(uploads[i - 1]?.sent ?? 0);
      }
    },
  );

  it('reports progress in 64 KiB steps for a larger upload, ending at the encrypted size', async () => {
    const session = await open();
    const noise = await solid(600, 400, { r: 1, g: 2, b: 3 })
      .composite([
        {
          input: {
            create: {
              width: 600,
              height: 400,
              channels: 3,
              background: 'black',
              noise: { type: 'gaussian', mean: 128, sigma: 60 },
            },
          },
        },
      ])
      .png()
      .toBuffer();
    const sent: number[] = [];
    await session.turn().attach(noise, { onProgress: (p) => p.phase === 'upload' && sent.push(p.sent) });
    const total = noise.length + 40;
    expect(total).toBeGreaterThan(4 * 65536);
    expect(sent).toEqual([
      0,
      ...Array.from({ length: Math.ceil(total / 65536) }, (_, i) => Math.min(total, (i + 1) * 65536)),
    ]);
  });

  it('attaches inside a tool call with parentId, and a subagent scope with agentId', async () => {
    const session = await open();
    const call = session.turn().toolCall({ toolName: 'render', title: 'Render', description: '', args: {} });
    const scope = call.scope({ agentId: 'agentxyz' });
    const message = await scope.attach(PDF, { name: 'out.pdf' });
    expect(message).toMatchObject({ type: 'file', parentId: call.callId, agentId: 'agentxyz' });
  });

  it('with upload: false references the absolute path as machine-file:// and uploads nothing', async () => {
    const session = await open();
    const before = attachmentRequests(requests).length;
    const relative = join(dir, 'sub', '..', 'gradient.png');
    const message = await session.turn().attach(relative, { upload: false });
    expect(message).toMatchObject({
      type: 'photo',
      ref: `machine-file://${join(dir, 'gradient.png')}`,
      width: 64,
      height: 48,
    });
    expect(attachmentRequests(requests).length).toBe(before);
    expect(await storedBlobs(dataDir, session.id)).toEqual(new Map());
    expect((await session.fetchMedia(message)).equals(media.png as Buffer)).toBe(true);
  });

  it('with upload: false refuses bytes with media.not_a_path', async () => {
    const session = await open();
    await expect(session.turn().attach(PDF, { upload: false })).rejects.toMatchObject({
      code: 'media.not_a_path',
      hint: expect.any(String),
    });
  });
});

describe('attach() refuses bad input before any byte is sent', () => {
  const bad: Array<{ name: string; code: string; input: () => Promise<AttachInput> }> = [
    {
      name: 'a corrupt image',
      code: 'media.corrupt_image',
      input: async () => Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(512, 0x33)]),
    },
    {
      name: 'a corrupt image from a path',
      code: 'media.corrupt_image',
      input: async () => {
        const path = join(dir, 'broken.jpg');
        await writeFile(
          path,
          Buffer.concat([Buffer.from('ffd8ffe000104a464946', 'hex'), Buffer.alloc(4096, 0x33)]),
        );
        return path;
      },
    },
    {
      name: 'a truncated video',
      code: 'media.truncated_video',
      input: async () => (media.mp4 as Buffer).subarray(0, (media.mp4 as Buffer).length / 2),
    },
    {
      name: 'a zero-byte file',
      code: 'media.empty_file',
      input: async () => {
        const path = join(dir, 'empty.bin');
        await writeFile(path, '');
        return path;
      },
    },
    {
      name: 'a path that does not exist',
      code: 'media.unreadable_path',
      input: async () => join(dir, 'missing.png'),
    },
    {
      name: 'a directory',
      code: 'media.unreadable_path',
      input: async () => dir,
    },
    {
      name: 'a file one byte over the limit',
      code: 'media.too_large',
      input: async () => {
        const path = join(dir, 'huge.bin');
        await writeFile(path, '');
        await truncate(path, DEFAULT_MAX_MEDIA_BYTES + 1);
        return path;
      },
    },
  ];

  it.each(bad)('$name: $code with a hint, nothing appended, no upload request', async ({ code, input }) => {
    const session = await open();
    const turn = session.turn();
    const attachBefore = attachmentRequests(requests).length;
    const error = await turn.attach(await input()).catch((e: unknown) => e);
    expect(error).toMatchObject({ code, hint: expect.any(String) });
    await session.writer.flush();
    // No media message: only the note saying which file failed and why (test/media/attachFailureNote.test.ts).
    expect((await session.reader.messages()).map((m) => m.type)).toEqual(['turn-start', 'service']);
    expect(attachmentRequests(requests).length).toBe(attachBefore);
    expect(await storedBlobs(dataDir, session.id)).toEqual(new Map());
  });
});

describe('a file attached by path is uploaded from where it is (docs/media.md, "Memory")', () => {
  it('changed while it is uploaded: media.file_changed, nothing appended, no blob stored', async () => {
    const session = await open();
    const path = join(dir, 'being-written.bin');
    await writeFile(path, randomBytes(400_000));
    let rewritten = false;
    const error = await session
      .turn()
      .attach(path, {
        onProgress: ({ phase, sent }) => {
          if (phase !== 'upload' || sent < 65_536 || rewritten) return;
          rewritten = true;
          // Another program rewrites part of it: same size, other bytes.
          const fd = openSync(path, 'r+');
          writeSync(fd, randomBytes(100), 0, 100, 300_000);
          closeSync(fd);
        },
      })
      .catch((e: unknown) => e);
    expect(rewritten).toBe(true);
    expect(error).toMatchObject({ code: 'media.file_changed', hint: expect.any(String), details: { path } });
    await session.writer.flush();
    // No media message: only the note saying which file failed and why (test/media/attachFailureNote.test.ts).
    expect((await session.reader.messages()).map((m) => m.type)).toEqual(['turn-start', 'service']);
    expect(await storedBlobs(dataDir, session.id)).toEqual(new Map());
  });
});

describe('upload URLs that name localhost', () => {
  it('are sent to the server URL instead, with the bearer token', async () => {
    const log = requestLog();
    // The relay believes its public address is a localhost port nobody listens on.
    const local = await startRelay({ publicUrl: 'http://localhost:9', logger: log.logger });
    try {
      const owner = await accountOn(local.url);
      const session = await connect({ server: local.url, credentials: owner.credentials });
      try {
        const message = await session.turn().attach(PDF, { name: 'a.pdf' });
        expect((await session.fetchMedia(message)).equals(PDF)).toBe(true);
        const puts = log.requests.filter((r) => r.method === 'PUT');
        expect(puts).toEqual([expect.objectContaining({ status: 200 })]);
      } finally {
        await session.close();
      }
    } finally {
      await local.close();
    }
  });
});
