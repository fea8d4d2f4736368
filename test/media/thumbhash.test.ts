import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { thumbhashFromImage } from 'happy-session/media';
import { thumbhashFromRgba } from '../../packages/sdk/src/media/thumbhash.js';
import { colourDistance, gradient, midpoint, solid, thumbhashAverage } from './fixtures.js';

const vectors = JSON.parse(
  readFileSync(new URL('../vectors/happy-crypto.json', import.meta.url), 'utf8'),
) as {
  thumbhash: { width: number; height: number; rgbaHex: string; thumbhashBase64: string; length: number };
};

/** A thumbhash is a blur: its decoded average may drift this far (per channel, 0-255) from the source's. */
const AVERAGE_TOLERANCE = 8;

describe('thumbhashFromRgba', () => {
  it('reproduces the thumbhash vector of happy-crypto.json (docs/wire.md §10)', () => {
    const { width, height, rgbaHex, thumbhashBase64, length } = vectors.thumbhash;
    const hash = thumbhashFromRgba(width, height, Buffer.from(rgbaHex, 'hex'));
    expect(hash).toBe(thumbhashBase64);
    expect(Buffer.from(hash, 'base64')).toHaveLength(length);
  });

  it('refuses an image larger than 100 px on a side with media.invalid_pixels', () => {
    expect(() => thumbhashFromRgba(101, 1, new Uint8Array(101 * 4))).toThrow(
      expect.objectContaining({ code: 'media.invalid_pixels', hint: expect.any(String) }),
    );
  });

  it('refuses a pixel buffer of the wrong length with media.invalid_pixels', () => {
    expect(() => thumbhashFromRgba(2, 2, new Uint8Array(15))).toThrow(
      expect.objectContaining({ code: 'media.invalid_pixels' }),
    );
  });
});

describe('thumbhashFromImage', () => {
  it('hashes a solid image to a placeholder of the same average colour', async () => {
    const colour = { r: 200, g: 60, b: 30 };
    const hash = await thumbhashFromImage(await solid(640, 480, colour).png().toBuffer());
    expect(colourDistance(thumbhashAverage(hash), colour)).toBeLessThanOrEqual(AVERAGE_TOLERANCE);
  });

  it('hashes a gradient to a placeholder whose average is the gradient midpoint', async () => {
    const from = { r: 0, g: 40, b: 255 };
    const to = { r: 255, g: 200, b: 0 };
    const hash = await thumbhashFromImage(await gradient(300, 200, from, to).png().toBuffer());
    expect(colourDistance(thumbhashAverage(hash), midpoint(from, to))).toBeLessThanOrEqual(AVERAGE_TOLERANCE);
  });

  it('keeps the aspect ratio of a landscape image in the decoded placeholder', async () => {
    const hash = await thumbhashFromImage(await solid(400, 100, { r: 9, g: 9, b: 9 }).png().toBuffer());
    const { width, height } = thumbhashAverage(hash);
    expect(width).toBeGreaterThan(height);
  });

  it('raises media.corrupt_image for bytes that are not an image', async () => {
    await expect(thumbhashFromImage(Buffer.from('not an image at all'))).rejects.toMatchObject({
      code: 'media.corrupt_image',
      hint: expect.any(String),
    });
  });
});
