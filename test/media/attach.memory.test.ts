import { firstValueFrom, toArray } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { blobKeyFor, decryptBlob } from '../../packages/sdk/src/crypto/blob.js';
import { MemoryUploader, fetchMedia, useMedia } from '../../packages/sdk/src/media/index.js';
import type { MediaMessage, MediaProgress } from '../../packages/sdk/src/media/index.js';
import { reachableUrl } from '../../packages/sdk/src/transport/serverUrls.js';
import { memorySession } from '../helpers/memorySession.js';
import { solid } from './fixtures.js';

const PDF = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');

function mediaSession() {
  const session = memorySession();
  const uploader = new MemoryUploader({ chunkSize: 32 });
  const pipeline = useMedia(session.writer, { uploader, key: session.key });
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
    expect(seen[0]).toEqual({ messageId: message.id, name: 'r.pdf', kind: 'file', sent: 0, total });
    expect(seen.at(-1)).toEqual({ messageId: message.id, name: 'r.pdf', kind: 'file', sent: total, total });
    expect(total).toBe(117);
    expect(seen.map((e) => e.sent)).toEqual([0, 32, 64, 96, 117]);
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
      expect.objectContaining({ code: 'media.not_configured' }),
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
