import sharp from 'sharp';
import { createReadStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_MAX_MEDIA_BYTES, MAX_ENCRYPTED_ATTACHMENT_BYTES, prepareMedia } from 'happy-session/media';
import type { PrepareStage } from 'happy-session/media';
import { colourDistance, makeTempDir, solid, thumbhashAverage } from './fixtures.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeAll(async () => ({ dir, cleanup } = await makeTempDir()));
afterAll(() => cleanup());

const colour = { r: 240, g: 200, b: 40 };

describe('prepareMedia', () => {
  it('prepares a photo from a path: kind, name, size, displayed size and thumbhash', async () => {
    const jpeg = await solid(80, 60, colour).jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const path = join(dir, 'holiday.jpg');
    await writeFile(path, jpeg);
    const prepared = await prepareMedia(path);
    expect(prepared).toMatchObject({
      kind: 'photo',
      name: 'holiday.jpg',
      mimeType: 'image/jpeg',
      size: jpeg.length,
      photo: { width: 60, height: 80 },
    });
    expect(prepared.bytes.equals(jpeg)).toBe(true);
    expect(colourDistance(thumbhashAverage(prepared.photo?.thumbhash ?? ''), colour)).toBeLessThanOrEqual(8);
  });

  it('names a photo from bytes after its kind and type unless told otherwise', async () => {
    const webp = await solid(10, 10, colour).webp().toBuffer();
    expect((await prepareMedia(webp)).name).toBe('photo.webp');
    expect((await prepareMedia(webp, { name: 'chart.webp' })).name).toBe('chart.webp');
  });

  it('prepares a PDF as a file of type application/pdf, without photo or video fields', async () => {
    const pdf = Buffer.from(
      '%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n',
    );
    const prepared = await prepareMedia(pdf, { name: 'report.pdf' });
    expect(prepared).toEqual({
      kind: 'file',
      name: 'report.pdf',
      mimeType: 'application/pdf',
      size: pdf.length,
      bytes: pdf,
    });
  });

  it('prepares unknown content as application/octet-stream, or as the type the caller names', async () => {
    const binary = Buffer.from([0x00, 0x9c, 0xff, 0x00]);
    expect(await prepareMedia(binary)).toMatchObject({
      kind: 'file',
      mimeType: 'application/octet-stream',
      name: 'file.bin',
    });
    expect(await prepareMedia(binary, { mimeType: 'application/x-thing' })).toMatchObject({
      kind: 'file',
      mimeType: 'application/x-thing',
    });
  });

  it('prepares a text file as text, typed by its extension', async () => {
    expect(await prepareMedia(Buffer.from('plain words\n'))).toMatchObject({
      kind: 'file',
      mimeType: 'text/plain',
      name: 'file.txt',
    });
    const path = join(dir, 'notes.md');
    await writeFile(path, '# Notes\n');
    expect(await prepareMedia(path)).toMatchObject({
      kind: 'file',
      mimeType: 'text/markdown',
      name: 'notes.md',
    });
  });

  it('prepares a photo from a file stream, named after its file', async () => {
    const path = join(dir, 'streamed.png');
    await writeFile(path, await solid(30, 20, colour).png().toBuffer());
    expect(await prepareMedia(createReadStream(path))).toMatchObject({
      kind: 'photo',
      name: 'streamed.png',
      photo: { width: 30, height: 20 },
    });
  });

  it('reports its stages in order', async () => {
    const stages: PrepareStage[] = [];
    await prepareMedia(await solid(8, 8, colour).png().toBuffer(), {
      onProgress: (stage) => stages.push(stage),
    });
    expect(stages).toEqual(['read', 'detect', 'probe', 'done']);
  });

  it('keeps the encrypted size within the server limit by default', () => {
    // secretbox adds a 24-byte nonce and a 16-byte tag (docs/wire.md §3.2); the server takes 10 MiB (§8.1).
    expect(DEFAULT_MAX_MEDIA_BYTES + 24 + 16).toBe(MAX_ENCRYPTED_ATTACHMENT_BYTES);
  });

  it('refuses one byte over the default limit with media.too_large', async () => {
    await expect(prepareMedia(new Uint8Array(DEFAULT_MAX_MEDIA_BYTES + 1))).rejects.toMatchObject({
      code: 'media.too_large',
      hint: expect.any(String),
    });
  });

  it('refuses an oversize stream with media.too_large', async () => {
    const chunks = Array.from({ length: 100 }, () => Buffer.alloc(1024));
    await expect(prepareMedia(Readable.from(chunks), { maxBytes: 10 * 1024 })).rejects.toMatchObject({
      code: 'media.too_large',
    });
  });

  it('raises media.corrupt_image for a PNG signature followed by garbage', async () => {
    const corrupt = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(512, 0x33)]);
    await expect(prepareMedia(corrupt)).rejects.toMatchObject({
      code: 'media.corrupt_image',
      hint: expect.any(String),
    });
  });

  it('media.corrupt_image says each of libvips’ warnings once, in one line', async () => {
    const photo = await sharp({
      create: { width: 40, height: 30, channels: 3, background: { r: 200, g: 0, b: 0 } },
    })
      .jpeg()
      .toBuffer();
    const error = await prepareMedia(photo.subarray(0, photo.length / 2)).then(
      () => undefined,
      (e: unknown) => e as Error & { code: string },
    );
    expect(error?.code).toBe('media.corrupt_image');
    expect(error!.message).not.toContain('\n');
    expect(error!.message.match(/premature end of JPEG image/g)).toHaveLength(1);
    expect(error!.message.match(/JPEG datastream contains no image/g)).toHaveLength(1);
  });

  it('raises media.empty_file for a zero-byte file', async () => {
    const path = join(dir, 'zero.jpg');
    await writeFile(path, '');
    await expect(prepareMedia(path)).rejects.toMatchObject({
      code: 'media.empty_file',
      hint: expect.any(String),
    });
  });

  it('raises media.unreadable_path for a missing file', async () => {
    await expect(prepareMedia(join(dir, 'nope.jpg'))).rejects.toMatchObject({
      code: 'media.unreadable_path',
      hint: expect.any(String),
    });
  });

  it('raises media.aborted for a signal that has fired', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(prepareMedia(Buffer.from('x'), { signal: controller.signal })).rejects.toMatchObject({
      code: 'media.aborted',
    });
  });
});
