import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSdkError } from 'happy-session';
import { DEFAULT_MAX_MEDIA_BYTES, prepareMedia, probeImage, probeVideo } from 'happy-session/media';
import { MIN_FIT_IMAGE_SIDE } from '../../packages/sdk/src/media/fitImage.js';
import type { FitAttempt, MediaMessage } from 'happy-session/media';
import { prepareSource, releaseSource } from '../../packages/sdk/src/media/prepare.js';
import type { Relay } from 'happy-session-relay';
import { startRelay } from 'happy-session-relay';
import { connect } from 'happy-session/node';
import type { AttachProgress } from 'happy-session';
import { accountOn } from '../transport/helpers.js';
import type { RelayAccount } from '../transport/helpers.js';
import { ffmpeg } from './fixtures.js';
import { attachmentRequests, requestLog } from './relayFixtures.js';
import type { RelayRequest } from './relayFixtures.js';

const run = promisify(execFile);
const MB = 1_000_000;

let relay: Relay;
let account: Omit<RelayAccount, 'relay'>;
let dir: string;
let requests: RelayRequest[];

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'happy-fit-'));
  const log = requestLog();
  requests = log.requests;
  relay = await startRelay({ logger: log.logger });
  account = await accountOn(relay.url);
});
afterAll(async () => {
  await relay.close();
  await rm(dir, { recursive: true, force: true });
});

/** Gaussian noise: the hardest content to compress, so the sizes below are what they say. */
function noise(width: number, height: number, channels: 3 | 4, sigma: number) {
  return sharp({
    create: {
      width,
      height,
      channels,
      background: { r: 0, g: 0, b: 0, alpha: 1 },
      noise: { type: 'gaussian', mean: 128, sigma },
    },
  });
}

/** What `ffprobe` says about the video stream of a file. */
async function ffprobe(
  path: string,
): Promise<{ codec: string; width: number; height: number; audio: string | undefined }> {
  const { stdout } = await run('ffprobe', ['-v', 'error', '-show_streams', '-of', 'json', path]);
  const streams = (
    JSON.parse(stdout) as {
      streams: Array<{ codec_type: string; codec_name: string; width?: number; height?: number }>;
    }
  ).streams;
  const video = streams.find((s) => s.codec_type === 'video')!;
  return {
    codec: video.codec_name,
    width: video.width!,
    height: video.height!,
    audio: streams.find((s) => s.codec_type === 'audio')?.codec_name,
  };
}

describe("attach() with fit: 'auto' fits what the server would refuse", () => {
  it('a 30 MB JPEG, a 25 MB PNG screenshot and a 60 MB MP4 arrive under the limit, described as sent', async () => {
    // A phone photo: 27 megapixels of noise at quality 99.
    const jpeg = await noise(6000, 4500, 3, 50).jpeg({ quality: 99 }).toBuffer();
    // A 4K screenshot with an alpha channel, stored with light compression.
    const png = await noise(3840, 2160, 4, 30).png({ compressionLevel: 1 }).toBuffer();
    const mp4Path = join(dir, 'phone.mp4');
    // Five seconds of lossless noise with a tone: 60 MB and more.
    await ffmpeg(
      ['-f', 'lavfi', '-i', 'testsrc2=size=640x360:rate=30,noise=alls=60:allf=t', '-f', 'lavfi', '-i', 'sine=frequency=440',
        '-t', '5', '-c:v', 'libx264', '-preset', 'ultrafast', '-qp', '0', '-c:a', 'aac', '-shortest'],
      mp4Path,
    ); // prettier-ignore
    const mp4 = await readFile(mp4Path);
    expect(jpeg.length).toBeGreaterThan(30 * MB);
    expect(png.length).toBeGreaterThan(25 * MB);
    expect(mp4.length).toBeGreaterThan(60 * MB);

    const session = await connect({ server: relay.url, credentials: account.credentials });
    try {
      const turn = session.turn();
      for (const [input, size, kind] of [
        [jpeg, jpeg.length, 'photo'],
        [png, png.length, 'photo'],
        [mp4Path, mp4.length, 'video'],
      ] as const) {
        const progress: AttachProgress[] = [];
        const message = (await turn.attach(input, {
          fit: 'auto',
          onProgress: (p) => progress.push(p),
        })) as MediaMessage;
        expect(message.type).toBe(kind);

        const sent = await session.fetchMedia(message);
        expect(sent.length).toBeLessThanOrEqual(DEFAULT_MAX_MEDIA_BYTES);
        // The phases in order, with the original and the final size.
        expect([...new Set(progress.map((p) => p.phase))]).toEqual([
          'probe',
          'compress',
          'encrypt',
          'upload',
        ]);
        expect(progress.at(-1)).toEqual({
          phase: 'upload',
          sent: sent.length + 40,
          total: sent.length + 40,
          originalBytes: size,
          finalBytes: sent.length,
        });
        expect(progress.filter((p) => p.phase === 'compress').some((p) => (p.fraction ?? 0) > 0)).toBe(true);

        // Dimensions and ThumbHash describe the bytes that were sent, not the original.
        if (message.type === 'photo') {
          const probe = await probeImage(sent);
          expect(message).toMatchObject({
            width: probe.width,
            height: probe.height,
            thumbhash: probe.thumbhash,
          });
        } else if (message.type === 'video') {
          const probe = await probeVideo(sent);
          expect(message).toMatchObject({
            width: probe.width,
            height: probe.height,
            durationMs: probe.durationMs,
            thumbhash: probe.thumbhash,
            mimeType: 'video/mp4',
            size: sent.length,
          });
          const fitted = join(dir, 'fitted.mp4');
          await writeFile(fitted, sent);
          expect(await ffprobe(fitted)).toEqual({ codec: 'h264', width: 640, height: 360, audio: 'aac' });
          expect(Math.abs(probe.durationMs - 5000)).toBeLessThan(200);
        }
      }
      // The photos kept their aspect; the screenshot with alpha became WebP.
      const [photo, screenshot] = (await session.reader.messages()).filter(
        (m): m is Extract<MediaMessage, { type: 'photo' }> => m.type === 'photo',
      );
      expect(photo!.width / photo!.height).toBeCloseTo(6000 / 4500, 2);
      expect(screenshot!.width / screenshot!.height).toBeCloseTo(3840 / 2160, 2);
      expect((await sharp(await session.fetchMedia(screenshot!)).metadata()).format).toBe('webp');
      turn.end();
    } finally {
      await session.close();
    }
  }, 600_000);

  it("fit: 'never' keeps the refusal: media.too_large before any upload request", async () => {
    const png = await noise(2000, 2000, 3, 60).png({ compressionLevel: 0 }).toBuffer();
    expect(png.length).toBeGreaterThan(DEFAULT_MAX_MEDIA_BYTES);
    const session = await connect({ server: relay.url, credentials: account.credentials });
    try {
      const before = attachmentRequests(requests).length;
      const turn = session.turn();
      await expect(turn.attach(png, { fit: 'never' })).rejects.toMatchObject({ code: 'media.too_large' });
      expect(attachmentRequests(requests).length).toBe(before);
      turn.end();
      await session.writer.flush();
      expect((await session.reader.messages()).map((m) => m.type)).toEqual([
        'turn-start',
        'service',
        'turn-end',
      ]);
    } finally {
      await session.close();
    }
  }, 120_000);
});

describe('fitting images', () => {
  it('applies the EXIF orientation and drops the metadata', async () => {
    // Stored 1200x800, displayed 800x1200 (orientation 6 is a quarter turn).
    const jpeg = await noise(1200, 800, 3, 40)
      .jpeg({ quality: 100 })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    const prepared = await prepareMedia(jpeg, { maxBytes: Math.floor(jpeg.length / 2) });
    expect(prepared.photo).toMatchObject({ width: 800, height: 1200 });
    const metadata = await sharp(prepared.bytes).metadata();
    expect({ width: metadata.width, height: metadata.height, orientation: metadata.orientation }).toEqual({
      width: 800,
      height: 1200,
      orientation: undefined,
    });
    expect(prepared.size).toBeLessThanOrEqual(jpeg.length / 2);
    expect(prepared.fitted?.originalBytes).toBe(jpeg.length);
  });

  it('steps the quality down, then the size, and renames the file to its new format', async () => {
    const png = await noise(1600, 1200, 3, 60).png().toBuffer();
    const prepared = await prepareMedia(png, { name: 'shot.png', maxBytes: 150_000 });
    const tried = prepared.fitted!.tried;
    expect(tried.map((t) => t.quality).slice(0, 1)).toEqual([85]);
    expect(tried.at(-1)!.width).toBeLessThan(1600);
    expect(tried.at(-1)!.bytes).toBe(prepared.size);
    expect(prepared.size).toBeLessThanOrEqual(150_000);
    expect(prepared).toMatchObject({ name: 'shot.jpg', mimeType: 'image/jpeg' });
    expect(prepared.photo).toMatchObject({ width: tried.at(-1)!.width, height: tried.at(-1)!.height });
  });

  it('gives up at the smallest useful size with media.too_large listing every attempt', async () => {
    const png = await noise(1200, 1200, 3, 60).png().toBuffer();
    let thrown: unknown;
    try {
      await prepareMedia(png, { maxBytes: 2_000 });
    } catch (error) {
      thrown = error;
    }
    expect(isSdkError(thrown, 'media.too_large')).toBe(true);
    const tried = (thrown as { details: { tried: FitAttempt[] } }).details.tried;
    expect(tried.length).toBeGreaterThan(1);
    expect(Math.min(...tried.map((t) => Math.max(t.width, t.height)))).toBeGreaterThanOrEqual(
      MIN_FIT_IMAGE_SIDE,
    );
    expect((thrown as Error).message).toMatch(
      /could not be made to fit in 2000 bytes: \d+ encodings tried, the smallest/,
    );
  });
});

describe('fitting videos', () => {
  it('scales down to what the bitrate can carry, keeping the aspect', async () => {
    const path = join(dir, 'wide.mp4');
    const clip = await ffmpeg(
      ['-f', 'lavfi', '-i', 'testsrc2=size=1280x720:rate=25', '-t', '8', '-c:v', 'libx264', '-preset', 'ultrafast', '-qp', '10'],
      path,
    ); // prettier-ignore
    const prepared = await prepareMedia(clip, { maxBytes: 400_000 });
    expect(prepared.size).toBeLessThanOrEqual(400_000);
    // 400 kB over 8 s leaves under 500 kbit/s: 426 pixels on the longest side.
    expect(prepared.video).toMatchObject({ width: 426, height: 240 });
    expect(prepared.fitted!.tried[0]).toMatchObject({ format: 'mp4', width: 426, height: 240 });
  }, 120_000);

  it('refuses a video too long for any useful bitrate, saying why', async () => {
    const clip = await ffmpeg(
      ['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=10', '-t', '20', '-c:v', 'libx264', '-preset', 'ultrafast', '-qp', '0'],
      join(dir, 'long.mp4'),
    ); // prettier-ignore
    await expect(prepareMedia(clip, { maxBytes: 100_000 })).rejects.toMatchObject({
      code: 'media.too_large',
      message: expect.stringMatching(/at 20\.0 s it would need 3\d kbit\/s, below the 120 kbit\/s/),
      details: { size: clip.length, maxBytes: 100_000, tried: [] },
    });
  }, 120_000);

  /** Runs `use` with the temporary directory (`TMPDIR`) pointed at an empty one of its own. */
  async function withOwnTmpdir(use: (tmp: string) => Promise<void>): Promise<void> {
    const tmp = join(dir, `tmp-${Math.random().toString(36).slice(2)}`);
    await mkdir(tmp);
    const previous = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      await use(tmp);
    } finally {
      if (previous === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = previous;
    }
  }

  async function smallClip(): Promise<string> {
    const path = join(dir, 'small.mp4');
    await ffmpeg(
      ['-f', 'lavfi', '-i', 'testsrc2=size=320x240:rate=25', '-t', '2', '-c:v', 'libx264', '-preset', 'ultrafast', '-qp', '0'],
      path,
    ); // prettier-ignore
    return path;
  }

  it('a video given by path is fitted into a temporary file, probed and uploaded from there, and removed on release', async () => {
    const clip = await smallClip();
    await withOwnTmpdir(async (tmp) => {
      const prepared = await prepareSource(clip, { maxBytes: 100_000 }, { inPlace: true });
      expect(prepared).toMatchObject({ kind: 'video', mimeType: 'video/mp4', name: 'small.mp4' });
      expect(prepared.video).toMatchObject({ width: 320, height: 240 });
      if (!('file' in prepared.source)) throw new Error('the fitted video was read into memory');
      const { file } = prepared.source;
      expect(file.path.startsWith(tmp)).toBe(true);
      expect((await stat(file.path)).size).toBe(prepared.size);
      expect(prepared.size).toBeLessThanOrEqual(100_000);
      expect(await ffprobe(file.path)).toMatchObject({ codec: 'h264', width: 320, height: 240 });
      // Only the fitted file is left: neither a copy of the input nor a second one for probing.
      expect(await readdir(join(file.path, '..'))).toEqual(['fitted.mp4']);
      await releaseSource(prepared.source);
      expect(await readdir(tmp)).toEqual([]);
    });
  }, 120_000);

  it('prepareMedia() returns a fitted video as bytes and leaves no temporary file', async () => {
    const clip = await smallClip();
    await withOwnTmpdir(async (tmp) => {
      const prepared = await prepareMedia(clip, { maxBytes: 100_000 });
      expect(prepared.bytes.length).toBe(prepared.size);
      expect(prepared.size).toBeLessThanOrEqual(100_000);
      expect(await readdir(tmp)).toEqual([]);
    });
  }, 120_000);

  it('an abort while the fitted video is probed removes its temporary file: media.aborted', async () => {
    const clip = await smallClip();
    await withOwnTmpdir(async (tmp) => {
      const controller = new AbortController();
      const preparing = prepareSource(
        clip,
        {
          maxBytes: 100_000,
          signal: controller.signal,
          onProgress: (stage) => {
            if (stage === 'probe') controller.abort();
          },
        },
        { inPlace: true },
      );
      await expect(preparing).rejects.toMatchObject({ code: 'media.aborted' });
      expect(await readdir(tmp)).toEqual([]);
    });
  }, 120_000);

  it('plain files are not re-encoded: media.too_large says so', async () => {
    await expect(prepareMedia(Buffer.alloc(3_000, 7), { maxBytes: 1_000 })).rejects.toMatchObject({
      code: 'media.too_large',
      message: expect.stringContaining('only photos and videos can be re-encoded'),
    });
  });

  it('a plain file by path over the limit is refused: only photos and videos can be re-encoded', async () => {
    const path = join(dir, 'big.bin');
    await writeFile(path, Buffer.alloc(3_000, 7));
    await expect(prepareSource(path, { maxBytes: 1_000 }, { inPlace: true })).rejects.toMatchObject({
      code: 'media.too_large',
      message: expect.stringContaining('only photos and videos can be re-encoded'),
      details: { size: 3_000, maxBytes: 1_000, tried: [] },
    });
  });
});
