import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { Sharp } from 'sharp';
import { thumbHashToRGBA } from 'thumbhash';

const run = promisify(execFile);

/** A private temporary directory for one test file; `cleanup` removes it. */
export async function makeTempDir(): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'happy-media-test-'));
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/** An RGB colour, 0-255 per channel. */
export interface Rgb {
  r: number;
  g: number;
  b: number;
}

/** A solid-colour image of the given size, in memory. */
export function solid(width: number, height: number, colour: Rgb): Sharp {
  return sharp({ create: { width, height, channels: 3, background: colour } });
}

/**
 * A horizontal gradient from `from` (left) to `to` (right). Its average colour is the midpoint of
 * the two, which makes it a source with a known average that is not flat.
 */
export function gradient(width: number, height: number, from: Rgb, to: Rgb): Sharp {
  const pixels = Buffer.alloc(width * height * 3);
  for (let x = 0; x < width; x++) {
    const t = x / (width - 1);
    const colour = [from.r + (to.r - from.r) * t, from.g + (to.g - from.g) * t, from.b + (to.b - from.b) * t];
    for (let y = 0; y < height; y++) {
      colour.forEach((value, channel) => (pixels[(y * width + x) * 3 + channel] = Math.round(value)));
    }
  }
  return sharp(pixels, { raw: { width, height, channels: 3 } });
}

/** The midpoint of two colours: the average of a {@link gradient} between them. */
export function midpoint(a: Rgb, b: Rgb): Rgb {
  return { r: (a.r + b.r) / 2, g: (a.g + b.g) / 2, b: (a.b + b.b) / 2 };
}

/** Decodes a base64 thumbhash with the reference decoder and averages its pixels. */
export function thumbhashAverage(thumbhash: string): Rgb & { width: number; height: number } {
  const { w, h, rgba } = thumbHashToRGBA(Buffer.from(thumbhash, 'base64'));
  const sum = { r: 0, g: 0, b: 0 };
  for (let i = 0; i < rgba.length; i += 4) {
    sum.r += rgba[i] ?? 0;
    sum.g += rgba[i + 1] ?? 0;
    sum.b += rgba[i + 2] ?? 0;
  }
  const n = w * h;
  return { r: sum.r / n, g: sum.g / n, b: sum.b / n, width: w, height: h };
}

/** The largest per-channel difference between two colours. */
export function colourDistance(a: Rgb, b: Rgb): number {
  return Math.max(Math.abs(a.r - b.r), Math.abs(a.g - b.g), Math.abs(a.b - b.b));
}

/** Runs the system ffmpeg (the tests need it on the PATH) and returns the output file's bytes. */
export async function ffmpeg(args: string[], output: string): Promise<Buffer> {
  await run('ffmpeg', ['-v', 'error', '-nostdin', '-y', ...args, output]);
  return readFile(output);
}

/** Hex colour for ffmpeg's lavfi `color` source. */
export function ffmpegColour({ r, g, b }: Rgb): string {
  return `0x${[r, g, b].map((v) => v.toString(16).padStart(2, '0')).join('')}`;
}
