/**
 * What `fit: 'auto'` adds per MB of input (docs/media.md, "Fitting the server's limit").
 *
 * 1. A JPEG of about 20 MB (noise, so it does not compress for free): the time `prepareMedia`
 *    takes with fitting, minus the time it takes to prepare the fitted result (what preparing costs
 *    anyway), per MB of input; as a ratio to one bare sharp re-encode of the same input at quality
 *    85 per MB, measured in the same run. Target: ratio <= 3 (fitting needs a few encodings).
 * 2. An MP4 of about 60 MB (five seconds of lossless noise with a tone): the same difference per
 *    MB, as a ratio to one bare ffmpeg transcode of the same input with the settings fit chose
 *    (H.264 veryfast at its bitrate, AAC), per MB. Target: ratio <= 1.5 (one transcode, plus
 *    probing).
 *
 * Run directly: `npx tsx bench/fit.bench.ts`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { prepareMedia } from '../packages/sdk/src/media/index.js';
import { runIfMain } from './lib/main.js';
import { median, round } from './lib/stats.js';
import type { BenchResult } from './types.js';

const run = promisify(execFile);
const MB = 1024 * 1024;
const SAMPLES = Number(process.env.BENCH_FIT_SAMPLES ?? 5);

/** Runs the fit benchmarks and returns their results. */
export default async function main(): Promise<BenchResult[]> {
  const dir = await mkdtemp(join(tmpdir(), 'happy-fit-bench-'));
  try {
    return [await photo(), await video(dir)];
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function photo(): Promise<BenchResult> {
  const jpeg = await sharp({
    create: {
      width: 5000,
      height: 3750,
      channels: 3,
      background: 'black',
      noise: { type: 'gaussian', mean: 128, sigma: 50 },
    },
  })
    .jpeg({ quality: 98 })
    .toBuffer();
  const fitted = await prepareMedia(jpeg);
  const sides = {
    fit: () => prepareMedia(jpeg),
    prepareFitted: () => prepareMedia(fitted.bytes),
    bare: () => sharp(jpeg).rotate().jpeg({ quality: 85 }).toBuffer(),
  };
  const t = await interleaved(sides);
  const mb = jpeg.length / MB;
  const value = (t.fit - t.prepareFitted) / mb;
  const baseline = t.bare / mb;
  return {
    name: 'media.fit.photo-ms-per-mb',
    value: round(value),
    baseline: round(baseline),
    ratio: round(value / baseline),
    unit: 'ms/MB',
    target: 'ratio <= 3',
    note:
      `fit of a 5000x3750 JPEG of ${mb.toFixed(1)} MB to ${(fitted.size / MB).toFixed(1)} MB ` +
      `(${fitted.fitted?.tried.length} encodings) minus preparing the result, per input MB, vs one sharp re-encode at q85 per MB; median of ${SAMPLES}`,
  };
}

async function video(dir: string): Promise<BenchResult> {
  const input = join(dir, 'noise.mp4');
  await run('ffmpeg', [
    '-v', 'error', '-nostdin', '-y',
    '-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=30,noise=alls=60:allf=t',
    '-f', 'lavfi', '-i', 'sine=frequency=440',
    '-t', '5', '-c:v', 'libx264', '-preset', 'ultrafast', '-qp', '0', '-c:a', 'aac', '-shortest', input,
  ]); // prettier-ignore
  const bytes = await readFile(input);
  const fitted = await prepareMedia(input);
  const bitrate = fitted.fitted?.tried.at(-1)?.videoBitrate ?? 0;
  const output = join(dir, 'bare.mp4');
  const sides = {
    fit: () => prepareMedia(input),
    prepareFitted: () => prepareMedia(fitted.bytes),
    bare: () =>
      run('ffmpeg', [
        '-v', 'error', '-nostdin', '-y', '-i', input,
        '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-b:v', String(bitrate),
        '-c:a', 'aac', '-b:a', '128000', output,
      ]), // prettier-ignore
  };
  const t = await interleaved(sides);
  const mb = bytes.length / MB;
  const value = (t.fit - t.prepareFitted) / mb;
  const baseline = t.bare / mb;
  return {
    name: 'media.fit.video-ms-per-mb',
    value: round(value),
    baseline: round(baseline),
    ratio: round(value / baseline),
    unit: 'ms/MB',
    target: 'ratio <= 1.5',
    note:
      `fit of a 5 s 640x360 MP4 of ${mb.toFixed(1)} MB to ${(fitted.size / MB).toFixed(1)} MB at ${Math.round(bitrate / 1000)} kbit/s ` +
      `minus preparing the result, per input MB, vs one bare ffmpeg transcode with those settings per MB; median of ${SAMPLES}`,
  };
}

/** Median time of each side, the sides taking turns so drift hits them alike; one warm-up round. */
async function interleaved<K extends string>(
  sides: Record<K, () => Promise<unknown>>,
): Promise<Record<K, number>> {
  const keys = Object.keys(sides) as K[];
  for (const key of keys) await sides[key]();
  const times = Object.fromEntries(keys.map((k) => [k, [] as number[]])) as Record<K, number[]>;
  for (let i = 0; i < SAMPLES; i++) {
    for (const key of keys) {
      const start = performance.now();
      await sides[key]();
      times[key].push(performance.now() - start);
    }
  }
  return Object.fromEntries(keys.map((k) => [k, median(times[k])])) as Record<K, number>;
}

await runIfMain(import.meta.url, main);
