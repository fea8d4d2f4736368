import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { probeImage } from 'happy-session/media';
import { MAX_IMAGE_PIXELS } from '../../packages/sdk/src/media/limits.js';
import { colourDistance, gradient, midpoint, solid, thumbhashAverage } from './fixtures.js';

const colour = { r: 30, g: 120, b: 220 };

/** A valid PNG header claiming the given size, followed by pixel data for only the first few pixels. */
function pngCutShort(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer): Buffer => {
    const typed = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(typed));
    return Buffer.concat([length, typed, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, default compression, filter, no interlace
  return Buffer.concat([
    Buffer.from('89504e470d0a1a0a', 'hex'),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.alloc(64))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('probeImage', () => {
  it.each([
    ['PNG', 'image/png', () => solid(64, 48, colour).png().toBuffer()],
    ['JPEG', 'image/jpeg', () => solid(64, 48, colour).jpeg().toBuffer()],
    ['WebP', 'image/webp', () => solid(64, 48, colour).webp().toBuffer()],
    ['GIF', 'image/gif', () => solid(64, 48, colour).gif().toBuffer()],
    ['AVIF', 'image/avif', () => solid(64, 48, colour).avif().toBuffer()],
    ['TIFF', 'image/tiff', () => solid(64, 48, colour).tiff().toBuffer()],
  ])('reads a %s: size, type, and a thumbhash of its colour', async (_format, mimeType, make) => {
    const probe = await probeImage(await make());
    expect(probe).toMatchObject({ width: 64, height: 48, mimeType });
    // GIF's 256-colour palette and lossy AVIF/WebP/JPEG shift the colour a little.
    expect(colourDistance(thumbhashAverage(probe.thumbhash), colour)).toBeLessThanOrEqual(8);
  });

  it.each([1, 2, 3, 4])('reports a JPEG with EXIF orientation %i at its stored size', async (orientation) => {
    const jpeg = await gradient(60, 40, colour, { r: 0, g: 0, b: 0 })
      .jpeg()
      .withMetadata({ orientation })
      .toBuffer();
    const probe = await probeImage(jpeg);
    expect(probe).toMatchObject({ width: 60, height: 40 });
    const placeholder = thumbhashAverage(probe.thumbhash);
    expect(placeholder.width).toBeGreaterThan(placeholder.height);
  });

  it.each([5, 6, 7, 8])(
    'reports a JPEG with EXIF orientation %i as displayed: sides swapped, placeholder upright',
    async (orientation) => {
      const jpeg = await gradient(60, 40, colour, { r: 0, g: 0, b: 0 })
        .jpeg()
        .withMetadata({ orientation })
        .toBuffer();
      const probe = await probeImage(jpeg);
      expect(probe).toMatchObject({ width: 40, height: 60 });
      const placeholder = thumbhashAverage(probe.thumbhash);
      expect(placeholder.height).toBeGreaterThan(placeholder.width);
    },
  );

  it('hashes a 12-megapixel gradient JPEG to its average colour', async () => {
    const from = { r: 250, g: 10, b: 10 };
    const to = { r: 10, g: 10, b: 250 };
    const probe = await probeImage(await gradient(4000, 3000, from, to).jpeg().toBuffer());
    expect(probe).toMatchObject({ width: 4000, height: 3000, mimeType: 'image/jpeg' });
    expect(colourDistance(thumbhashAverage(probe.thumbhash), midpoint(from, to))).toBeLessThanOrEqual(8);
  });

  it('reads the first frame of an animated GIF', async () => {
    const frames = Buffer.concat([
      await solid(20, 10, { r: 255, g: 0, b: 0 }).raw().toBuffer(),
      await solid(20, 10, { r: 0, g: 0, b: 255 }).raw().toBuffer(),
    ]);
    const { default: sharp } = await import('sharp');
    const gif = await sharp(frames, { raw: { width: 20, height: 20, channels: 3, pageHeight: 10 } })
      .gif({ loop: 0, delay: [100, 100] })
      .toBuffer();
    const probe = await probeImage(gif);
    expect(probe).toMatchObject({ width: 20, height: 10, mimeType: 'image/gif' });
    expect(colourDistance(thumbhashAverage(probe.thumbhash), { r: 255, g: 0, b: 0 })).toBeLessThanOrEqual(8);
  });

  // libvips maps a JPEG file while it decodes it; its cache kept that mapping (docs/media.md, "Memory").
  it.runIf(existsSync('/proc/self/maps'))(
    'leaves no mapping of a JPEG probed by path, and keeps the cache limits',
    async () => {
      const { default: sharp } = await import('sharp');
      const dir = await mkdtemp(join(tmpdir(), 'happy-probe-'));
      try {
        const path = join(dir, 'photo.jpg');
        await writeFile(path, await gradient(800, 600, colour, { r: 200, g: 40, b: 40 }).jpeg().toBuffer());
        const limits = sharp.cache();
        const probe = await probeImage(path);
        expect(probe).toMatchObject({ width: 800, height: 600, mimeType: 'image/jpeg' });
        expect(readFileSync('/proc/self/maps', 'utf8')).not.toContain(path);
        const after = sharp.cache();
        expect([after.memory.max, after.files.max, after.items.max]).toEqual([
          limits.memory.max,
          limits.files.max,
          limits.items.max,
        ]);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
  );

  it('raises media.corrupt_image for a PNG signature followed by garbage', async () => {
    const corrupt = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(256, 0x5a)]);
    await expect(probeImage(corrupt)).rejects.toMatchObject({
      code: 'media.corrupt_image',
      hint: expect.any(String),
    });
  });

  it('raises media.corrupt_image for a valid PNG header whose pixel data stops short', async () => {
    await expect(probeImage(pngCutShort(64, 48))).rejects.toMatchObject({ code: 'media.corrupt_image' });
  });

  it('refuses an image whose header claims more pixels than can be decoded, without decoding it', async () => {
    await expect(probeImage(pngCutShort(100_000, 100_000))).rejects.toMatchObject({
      code: 'media.too_large',
      hint: expect.any(String),
      details: { width: 100_000, height: 100_000, maxPixels: MAX_IMAGE_PIXELS },
    });
  });
});
