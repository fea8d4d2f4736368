import { join } from 'node:path';
import { firstValueFrom, toArray } from 'rxjs';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { blobKeyFor, decryptBlob } from 'happy-session/crypto';
import { MediaPipeline, MemoryUploader, fetchMedia } from 'happy-session/media';
import type { MediaMessage, MediaProgress } from 'happy-session/media';
import type { MessageContext } from 'happy-session/protocol';
import { reachableUrl } from '../../packages/sdk/src/transport/serverUrls.js';
import { memorySession } from '../helpers/memorySession.js';
import { ffmpeg, makeTempDir, solid } from './fixtures.js';

const PDF = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

function mediaSession() {
  const session = memorySession();
  const uploader = new MemoryUploader({ chunkSize: 32 });
  const pipeline = MediaPipeline.create({ writer: session.writer, uploader, key: session.key });
  return { ...session, uploader, pipeline };
}

describe('attach() over a MemoryTransport session with the memory uploader', () => {
  it('stores ciphertext, appends the photo after the upload, and reads back the same bytes', async () => {
    const { writer, reader, uploader, key } = mediaSession();
    const png = await solid(40, 30, { r: 10, g: 200, b: 90 }).png().toBuffer();
    const turn = writer.turn();
    const message = (await turn.attach(png)) as MediaMessage;
    expect(message).toMatchObject({
      type: 'photo',
      role: 'agent',
      turn: turn.turnId,
      width: 40,
      height: 30,
      ref: expect.stringMatching(/^sessions\/memory\/attachments\/[0-9a-f-]{36}\.enc$/),
    });
    const blob = uploader.blobs.get(message.ref) as Uint8Array;
    expect(blob.length).toBe(png.length + 40);
    const opened = decryptBlob(blob, blobKeyFor(key));
    expect(opened.ok && Buffer.from(opened.value).equals(png)).toBe(true);
    expect((await fetchMedia(message, { uploader, key })).equals(png)).toBe(true);
    await writer.flush();
    expect(await reader.messages()).toEqual([expect.objectContaining({ type: 'turn-start' }), message]);
  });

  it('announces progress on the pipeline with the id the message gets, and completes when the writer closes', async () => {
    const { writer, pipeline } = mediaSession();
    const events = firstValueFrom(pipeline.progress$.pipe(toArray()));
    const message = await writer.turn().attach(PDF, { name: 'r.pdf' });
    await writer.close();
    const seen: MediaProgress[] = await events;
    const total = PDF.length + 40;
    const sizes = { originalBytes: PDF.length, finalBytes: PDF.length };
    expect(seen.map((e) => e.phase)).toEqual([
      'probe',
      'encrypt',
      'upload',
      'upload',
      'upload',
      'upload',
      'upload',
    ]);
    expect(seen.every((e) => e.messageId === message.id && e.name === 'r.pdf')).toBe(true);
    const uploads = seen.filter((e) => e.phase === 'upload');
    const first = { messageId: message.id, name: 'r.pdf', kind: 'file', phase: 'upload', sent: 0, total };
    expect(uploads[0]).toEqual({ ...first, ...sizes });
    expect(uploads.at(-1)).toEqual({ ...first, sent: total, ...sizes });
    expect(total).toBe(117);
    expect(uploads.map((e) => e.sent)).toEqual([0, 32, 64, 96, 117]);
  });

  it('uploads and appends nothing when the turn ended during preparation', async () => {
    const { writer, reader, uploader } = mediaSession();
    const turn = writer.turn();
    const attaching = turn.attach(PDF);
    turn.end('completed');
    await expect(attaching).rejects.toMatchObject({ code: 'stream.turn_ended' });
    await writer.flush();
    expect((await reader.messages()).map((m) => m.type)).toEqual(['turn-start', 'turn-end']);
    expect(uploader.blobs.size).toBe(0);
  });

  it('refuses to attach without a pipeline, naming how to install one', () => {
    const { writer } = memorySession();
    expect(() => writer.turn().attach(PDF)).toThrow(
      expect.objectContaining({
        code: 'media.not_configured',
        hint: expect.stringContaining('MediaPipeline.create({ writer, uploader, key })'),
      }),
    );
  });

  it('reads a machine-file ref only from an agent message', async () => {
    const { uploader, key } = mediaSession();
    const message = {
      id: 'm1',
      time: 1,
      role: 'user',
      type: 'file',
      ref: 'machine-file:///etc/hostname',
      name: 'hostname',
      size: 1,
      mimeType: 'text/plain',
    } as const;
    await expect(fetchMedia(message, { uploader, key })).rejects.toMatchObject({ code: 'media.bad_ref' });
  });

  it('refuses a message without an attachment with media.bad_ref', async () => {
    const { uploader, key } = mediaSession();
    const text = { id: 't', time: 1, role: 'agent', type: 'text', turn: 'x', text: 'hi' } as const;
    await expect(fetchMedia(text, { uploader, key })).rejects.toMatchObject({ code: 'media.bad_ref' });
  });
});

describe('reachableUrl', () => {
  const own = '/v1/sessions/s1/attachments/';
  it("sends a localhost URL of the server's own route to the server URL", () => {
    expect(
      reachableUrl('http://localhost:3005/v1/sessions/s1/attachments/a.enc', 'https://happy.example', own),
    ).toBe('https://happy.example/v1/sessions/s1/attachments/a.enc');
  });
  it('leaves a presigned URL of local storage, and a public URL, as they are', () => {
    const minio = 'http://127.0.0.1:9000/bucket?X-Amz-Signature=abc';
    expect(reachableUrl(minio, 'http://127.0.0.1:3005', own)).toBe(minio);
    const s3 = 'https://bucket.s3.amazonaws.com/v1/sessions/s1/attachments/a.enc';
    expect(reachableUrl(s3, 'http://127.0.0.1:3005', own)).toBe(s3);
  });
});

describe("what attach() tells the writer's encoder beyond the v2 message", () => {
  /** A session whose encode hook records the context of each message (and stores it as v2). */
  function contextSession(posters: boolean) {
    const contexts = new Map<string, MessageContext>();
    const session = memorySession({
      encode: (message, context) => {
        contexts.set(message.id, context);
        return [message];
      },
    });
    const uploader = new MemoryUploader();
    MediaPipeline.create({ writer: session.writer, uploader, key: session.key, posters });
    return { ...session, uploader, contexts };
  }

  it('names bytes without a name photo-1.png, photo-2.png, file-1.pdf, and hands name, size and type over', async () => {
    const { writer, contexts } = contextSession(false);
    const png = await solid(8, 6, { r: 1, g: 2, b: 3 }).png().toBuffer();
    const turn = writer.turn();
    const first = await turn.attach(png);
    const second = await turn.attach(png);
    const pdf = await turn.attach(PDF);
    const named = await turn.attach(png, { name: 'chart.png' });
    expect([first, second, pdf, named].map((m) => contexts.get(m.id))).toEqual([
      { attachment: { name: 'photo-1.png', size: png.length, mimeType: 'image/png' } },
      { attachment: { name: 'photo-2.png', size: png.length, mimeType: 'image/png' } },
      { attachment: { name: 'file-1.pdf', size: PDF.length, mimeType: 'application/pdf' } },
      { attachment: { name: 'chart.png', size: png.length, mimeType: 'image/png' } },
    ]);
    expect(pdf).toMatchObject({ type: 'file', name: 'file-1.pdf' });
  });

  it('hands over a file name with a secret in it redacted, as the message holds it', async () => {
    const { writer, contexts } = contextSession(false);
    const token = `ghp_${'a1B2c3D4e5'.repeat(3)}123456`;
    const message = await writer.turn().attach(PDF, { name: `${token}.pdf` });
    expect(message).toMatchObject({ name: '[redacted:github-token].pdf' });
    expect(contexts.get(message.id)).toEqual({
      attachment: { name: '[redacted:github-token].pdf', size: PDF.length, mimeType: 'application/pdf' },
    });
  });

  it("with posters, a video's poster frame is uploaded as a PNG of its own and handed over; without, only the video is", async () => {
    const dir = await makeTempDir();
    try {
      const mp4 = await ffmpeg(
        [
          '-f',
          'lavfi',
          '-i',
          'color=c=0x3366cc:s=160x120:r=25:d=1',
          '-pix_fmt',
          'yuv420p',
          '-c:v',
          'libx264',
        ],
        join(dir.dir, 'clip.mp4'),
      );
      for (const posters of [true, false]) {
        const { writer, contexts, uploader, key } = contextSession(posters);
        const video = (await writer.turn().attach(mp4, { name: 'clip.mp4' })) as MediaMessage;
        const { attachment } = contexts.get(video.id)!;
        expect(attachment).toMatchObject({ name: 'clip.mp4', size: mp4.length, mimeType: 'video/mp4' });
        expect(uploader.blobs.size).toBe(posters ? 2 : 1);
        if (!posters) {
          expect(attachment!.poster).toBeUndefined();
          continue;
        }
        const poster = attachment!.poster!;
        expect(poster).toMatchObject({ mimeType: 'image/png', ref: expect.not.stringMatching(video.ref) });
        const bytes = await fetchMedia({ ...video, ref: poster.ref }, { uploader, key });
        expect(bytes.length).toBe(poster.size);
        expect(await sharp(bytes).metadata()).toMatchObject({ format: 'png', width: 160, height: 120 });
      }
    } finally {
      await dir.cleanup();
    }
  });
});
