/**
 * Media preparation benchmarks.
 *
 * 1. `prepareMedia` (read + detect + probe + thumbhash) of a 12-megapixel JPEG, as a ratio to sharp's
 *    bare resize of the same bytes to 100x100 in the same run. Target: ratio <= 1.3, i.e. preparation
 *    costs little more than the one decode it cannot avoid.
 * 2. Peak memory (RSS) of preparing a JPEG of almost 10 MB from a path, measured in a fresh child
 *    process, as a ratio to the file size. Preparation only.
 * 3. Peak memory (RSS) of attaching the same JPEG end to end: prepare + encrypt + upload + append,
 *    with the server in another process (the embedded relay in a child process of the measured
 *    child, or `HAPPY_SERVER_URL`), so only the SDK's memory counts. Target: ratio <= 1.5. The
 *    same for a plain file of the same size (random bytes), which needs no probing: what the
 *    upload itself holds.
 * 4. Time to attach a 12 MP JPEG end to end (prepare + encrypt + upload + append, until stored)
 *    against sharp's bare resize of it plus a raw upload of the same bytes (`encryptBlob`,
 *    `request-upload`, bare `fetch`), interleaved on the same server. Target: ratio <= 1.3.
 *
 * Run directly: `npx tsx bench/media.bench.ts`.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { DEFAULT_MAX_MEDIA_BYTES, prepareMedia } from '../packages/sdk/src/media/index.js';
import { blobKeyFor, encryptBlob } from '../packages/sdk/src/crypto/blob.js';
import { randomBytes } from '../packages/sdk/src/crypto/random.js';
import { connect } from '../packages/sdk/src/session/connect.js';
import { peakRss, resetPeakRss } from './lib/memory.js';
import { rawUpload } from './lib/rawClient.js';
import { benchServer } from './lib/server.js';
import { median, round, timed } from './lib/stats.js';
import type { BenchResult } from './types.js';

const ITERATIONS = 21;
const WARMUP = 3;
const MB = 1024 * 1024;

/** Runs the media benchmarks and returns their results. */
export default async function run(): Promise<BenchResult[]> {
  return [
    await preparePhotoVersusResize(),
    await peakMemoryOf10MB('prepare'),
    await peakMemoryOf10MB('upload'),
    await peakMemoryOf10MB('upload-file'),
    await attachPhotoVersusResizeAndUpload(),
  ];
}

/** A photo-like 12 MP JPEG of a few MB: smooth noise upscaled, not a flat one that decodes for free. */
async function photo12mp(): Promise<Buffer> {
  const texture = await sharp({
    create: {
      width: 1000,
      height: 750,
      channels: 3,
      background: 'black',
      noise: { type: 'gaussian', mean: 128, sigma: 40 },
    },
  })
    .png()
    .toBuffer();
  return sharp(texture).resize(4000, 3000).jpeg({ quality: 90 }).toBuffer();
}

const ATTACH_ITERATIONS = 9;

async function attachPhotoVersusResizeAndUpload(): Promise<BenchResult> {
  const jpeg = await photo12mp();
  const server = await benchServer();
  try {
    const session = await connect({
      server: server.url,
      credentials: server.credentials,
      title: 'bench attach',
    });
    try {
      const turn = session.turn();
      const blobKey = blobKeyFor(session.key);
      const attach = async (): Promise<unknown> => {
        await turn.attach(jpeg, { name: 'photo.jpg' });
        return session.writer.flush();
      };
      const bare = async (): Promise<unknown> => {
        await sharp(jpeg).resize(100, 100).toBuffer();
        return rawUpload(server.url, server.token, session.id, encryptBlob(jpeg, blobKey));
      };
      for (let i = 0; i < WARMUP; i++) {
        await bare();
        await attach();
      }
      const bareTimes: number[] = [];
      const attachTimes: number[] = [];
      for (let i = 0; i < ATTACH_ITERATIONS; i++) {
        bareTimes.push(await timed(bare));
        attachTimes.push(await timed(attach));
      }
      turn.end();
      const value = median(attachTimes);
      const baseline = median(bareTimes);
      return {
        name: 'media.attach.photo-12mp',
        value: round(value),
        baseline: round(baseline),
        ratio: round(value / baseline),
        unit: 'ms',
        target: 'ratio <= 1.3',
        note:
          `turn.attach(Buffer) + flush of a 4000x3000 JPEG (${(jpeg.length / MB).toFixed(1)} MB) vs ` +
          `sharp(jpeg).resize(100, 100).toBuffer() + encryptBlob + request-upload + bare fetch PUT; ` +
          `median of ${ATTACH_ITERATIONS} interleaved; server: ${server.label}`,
      };
    } finally {
      await session.close();
    }
  } finally {
    await server.close();
  }
}

async function preparePhotoVersusResize(): Promise<BenchResult> {
  const jpeg = await photo12mp();

  const bare = (): Promise<unknown> => sharp(jpeg).resize(100, 100).toBuffer();
  const prepare = (): Promise<unknown> => prepareMedia(jpeg);
  for (let i = 0; i < WARMUP; i++) {
    await bare();
    await prepare();
  }
  // Interleaved, so drift (thermal, other load) hits both sides alike.
  const bareTimes: number[] = [];
  const prepareTimes: number[] = [];
  for (let i = 0; i < ITERATIONS; i++) {
    bareTimes.push(await timed(bare));
    prepareTimes.push(await timed(prepare));
  }
  const value = median(prepareTimes);
  const baseline = median(bareTimes);
  return {
    name: 'media.prepare.photo-12mp',
    value: round(value),
    baseline: round(baseline),
    ratio: round(value / baseline),
    unit: 'ms',
    target: 'ratio <= 1.3',
    note: `prepareMedia(Buffer) of a 4000x3000 JPEG (${(jpeg.length / MB).toFixed(1)} MB) vs sharp(jpeg).resize(100, 100).toBuffer(); median of ${ITERATIONS}`,
  };
}

type ChildMode = 'prepare' | 'upload' | 'upload-file';

const FIGURES: Record<ChildMode, { name: string; what: string }> = {
  prepare: { name: 'media.prepare.peak-rss-10mb', what: 'preparing' },
  upload: {
    name: 'media.attach.peak-rss-10mb',
    what: 'attaching (prepare + encrypt + upload + append; the server in another process)',
  },
  'upload-file': {
    name: 'media.attach.peak-rss-10mb-file',
    what: 'attaching (detect + encrypt + upload + append; the server in another process)',
  },
};

async function peakMemoryOf10MB(mode: ChildMode): Promise<BenchResult> {
  const dir = await mkdtemp(join(tmpdir(), 'happy-media-bench-'));
  try {
    const plainFile = mode === 'upload-file';
    const path = join(dir, plainFile ? 'ten-megabytes.bin' : 'ten-megabytes.jpg');
    const bytes = plainFile
      ? randomBytes(DEFAULT_MAX_MEDIA_BYTES)
      : await jpegJustUnder(DEFAULT_MAX_MEDIA_BYTES);
    await writeFile(path, bytes);
    const child = await measureInChild(mode, path);
    const { name, what } = FIGURES[mode];
    const input = plainFile
      ? `a file of ${bytes.length} random bytes`
      : `a ${child.width}x${child.height} JPEG of ${bytes.length} bytes`;
    return {
      name,
      value: round(child.peakDelta / MB),
      baseline: round(bytes.length / MB),
      ratio: round(child.peakDelta / bytes.length),
      unit: 'MB',
      ...(mode === 'upload' ? { target: 'ratio <= 1.5' } : {}),
      note:
        `peak RSS above the idle process while ${what} ${input} ` +
        'from a path (fresh child process, warmed up on a tiny image' +
        (child.peakWasReset ? ', peak reset via clear_refs' : ', lifetime peak: may include start-up') +
        ')',
    };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A noise JPEG (12 MP) at the highest quality whose size still fits under `limit`. */
async function jpegJustUnder(limit: number): Promise<Buffer> {
  const noise = sharp({
    create: {
      width: 4000,
      height: 3000,
      channels: 3,
      background: 'black',
      noise: { type: 'gaussian', mean: 128, sigma: 30 },
    },
  });
  for (let quality = 97; quality >= 80; quality--) {
    const jpeg = await noise.clone().jpeg({ quality }).toBuffer();
    if (jpeg.length <= limit) return jpeg;
  }
  throw new Error('could not make a JPEG under the limit');
}

interface ChildReport {
  peakDelta: number;
  peakWasReset: boolean;
  width: number;
  height: number;
}

const CHILD_FLAG = '--media-rss-child';

async function measureInChild(mode: ChildMode, path: string): Promise<ChildReport> {
  const self = fileURLToPath(import.meta.url);
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--expose-gc', '--import', import.meta.resolve('tsx'), self, CHILD_FLAG, mode, path],
    { maxBuffer: MB },
  );
  return JSON.parse(stdout) as ChildReport;
}

/**
 * In the child: warm up on a tiny image (sharp; for `upload` also the relay, the session and the
 * upload path), settle, reset the kernel's high-water mark of RSS (Linux `clear_refs`; elsewhere
 * the process-lifetime peak is all there is), then prepare or attach the file.
 */
async function childMain(mode: ChildMode, path: string): Promise<void> {
  const tiny = await sharp({ create: { width: 8, height: 8, channels: 3, background: 'red' } })
    .png()
    .toBuffer();
  let measure: () => Promise<{ width: number; height: number }>;
  let finish = async (): Promise<void> => {};
  if (mode === 'prepare') {
    await prepareMedia(tiny);
    measure = async () => {
      const prepared = await prepareMedia(path);
      return { width: prepared.photo?.width ?? 0, height: prepared.photo?.height ?? 0 };
    };
  } else {
    // 'upload' and 'upload-file' alike: the input decides whether there is anything to probe.
    const server = await benchServer();
    const session = await connect({
      server: server.url,
      credentials: server.credentials,
      title: 'bench attach rss',
    });
    const turn = session.turn();
    await turn.attach(tiny);
    measure = async () => {
      const message = await turn.attach(path);
      await session.writer.flush();
      return message.type === 'photo' ? message : { width: 0, height: 0 };
    };
    finish = async () => {
      await session.close();
      await server.close();
    };
  }
  (globalThis as { gc?: () => void }).gc?.();
  const resetPeak = await resetPeakRss();
  const idle = process.memoryUsage().rss;
  const { width, height } = await measure();
  const peak = await peakRss();
  await finish();
  const report: ChildReport = { peakDelta: peak - idle, peakWasReset: resetPeak, width, height };
  process.stdout.write(JSON.stringify(report));
}

const invokedDirectly =
  process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (invokedDirectly) {
  const childIndex = process.argv.indexOf(CHILD_FLAG);
  const childMode = process.argv[childIndex + 1];
  const childPath = process.argv[childIndex + 2];
  if (childIndex !== -1 && childMode !== undefined && childMode in FIGURES && childPath !== undefined) {
    await childMain(childMode as ChildMode, childPath);
  } else {
    const results = await run();
    console.table(results.map(({ note: _note, ...rest }) => rest));
    for (const result of results) console.log(`${result.name}: ${result.note ?? ''}`);
    console.log(JSON.stringify(results, null, 2));
  }
}
