import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import sharp from 'sharp';
import { locateFfmpeg, prepareMedia, probeVideo } from 'happy-session/media';
import { colourDistance, ffmpeg, ffmpegColour, makeTempDir, thumbhashAverage } from './fixtures.js';

let dir: string;
let cleanup: () => Promise<void>;
let landscape: Buffer; // 320x240, 2 s, solid colour
let rotated: Buffer; // the same stream with a 90-degree rotation in its metadata
let faststart: Buffer; // 2 s test pattern with its index first

const colour = { r: 0x33, g: 0x66, b: 0xcc };
/** H.264 stores YUV 4:2:0, so a solid colour comes back a few levels off; the thumbhash blurs a little more. */
const AVERAGE_TOLERANCE = 10;

beforeAll(async () => {
  ({ dir, cleanup } = await makeTempDir());
  const encode = ['-pix_fmt', 'yuv420p', '-c:v', 'libx264'];
  landscape = await ffmpeg(
    ['-f', 'lavfi', '-i', `color=c=${ffmpegColour(colour)}:s=320x240:r=25:d=2`, ...encode],
    join(dir, 'landscape.mp4'),
  );
  rotated = await ffmpeg(
    ['-i', join(dir, 'landscape.mp4'), '-c', 'copy', '-metadata:s:v', 'rotate=90'],
    join(dir, 'rotated.mp4'),
  );
  faststart = await ffmpeg(
    ['-f', 'lavfi', '-i', 'testsrc=s=320x240:r=25:d=2', ...encode, '-movflags', '+faststart'],
    join(dir, 'faststart.mp4'),
  );
});
afterAll(() => cleanup());

describe('probeVideo', () => {
  it('reads size, duration and type of an MP4, and hashes a poster of its colour', async () => {
    const probe = await probeVideo(landscape);
    expect(probe).toMatchObject({ width: 320, height: 240, durationMs: 2000, mimeType: 'video/mp4' });
    expect(colourDistance(thumbhashAverage(probe.thumbhash), colour)).toBeLessThanOrEqual(AVERAGE_TOLERANCE);
  });

  it('returns the poster frame as a PNG of the displayed size', async () => {
    const { poster } = await probeVideo(landscape);
    expect(await sharp(poster).metadata()).toMatchObject({ format: 'png', width: 320, height: 240 });
  });

  it('applies rotation metadata: a 90-degree turn swaps the sides, and the poster is upright', async () => {
    const probe = await probeVideo(rotated);
    expect(probe).toMatchObject({ width: 240, height: 320, durationMs: 2000 });
    expect(await sharp(probe.poster).metadata()).toMatchObject({ width: 240, height: 320 });
    const placeholder = thumbhashAverage(probe.thumbhash);
    expect(placeholder.height).toBeGreaterThan(placeholder.width);
  });

  it('probes a file in place when given a path', async () => {
    const probe = await probeVideo({ path: join(dir, 'faststart.mp4') });
    expect(probe).toMatchObject({ width: 320, height: 240, durationMs: 2000, mimeType: 'video/mp4' });
  });

  it('raises media.truncated_video for an MP4 cut in half (index at the end, so it is lost)', async () => {
    await expect(probeVideo(landscape.subarray(0, landscape.length / 2))).rejects.toMatchObject({
      code: 'media.truncated_video',
      hint: expect.any(String),
    });
  });

  it('raises media.truncated_video for a fast-start MP4 cut in half (index intact, frames missing)', async () => {
    await expect(probeVideo(faststart.subarray(0, faststart.length / 2))).rejects.toMatchObject({
      code: 'media.truncated_video',
      hint: expect.any(String),
    });
  });

  it('raises media.corrupt_video for an MP4 whose frame data is garbage', async () => {
    const corrupt = Buffer.from(faststart);
    corrupt.fill(0x41, corrupt.indexOf('mdat') + 4);
    await expect(probeVideo(corrupt)).rejects.toMatchObject({
      code: 'media.corrupt_video',
      hint: expect.any(String),
    });
  });

  it('raises media.no_video_stream for an MP4 with only audio', async () => {
    const audio = await ffmpeg(
      ['-f', 'lavfi', '-i', 'sine=d=1', '-c:a', 'aac', '-f', 'mp4'],
      join(dir, 'audio.mp4'),
    );
    await expect(probeVideo(audio)).rejects.toMatchObject({ code: 'media.no_video_stream' });
  });

  it('gives the same answer with the ffmpeg/ffprobe of the npm installer packages', async () => {
    const tools = await locateFfmpeg({ searchPath: '', installerPackages: true });
    expect(tools.ffmpeg).toContain('@ffmpeg-installer');
    const probe = await probeVideo(rotated, { tools });
    expect(probe).toMatchObject({ width: 240, height: 320, durationMs: 2000 });
  });

  it('raises media.aborted when the signal has fired', async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(probeVideo(landscape, { signal: controller.signal })).rejects.toMatchObject({
      code: 'media.aborted',
    });
  });
});

describe('locateFfmpeg', () => {
  it('finds ffmpeg and ffprobe on the PATH first', async () => {
    const tools = await locateFfmpeg();
    await access(tools.ffmpeg);
    expect(tools).toEqual({
      ffmpeg: expect.stringMatching(/ffmpeg$/),
      ffprobe: expect.stringMatching(/ffprobe$/),
    });
    expect(tools.ffmpeg).not.toContain('node_modules');
  });

  it('raises media.ffmpeg_missing, with install instructions, when neither the PATH nor the packages have it', async () => {
    await expect(locateFfmpeg({ searchPath: '', installerPackages: false })).rejects.toMatchObject({
      code: 'media.ffmpeg_missing',
      hint: expect.stringContaining('apt-get install ffmpeg'),
    });
  });

  it('skips a file named ffmpeg that is not executable', async () => {
    const fake = join(dir, 'bin');
    await (await import('node:fs/promises')).mkdir(fake);
    await writeFile(join(fake, 'ffmpeg'), 'not a program', { mode: 0o644 });
    await writeFile(join(fake, 'ffprobe'), 'not a program', { mode: 0o644 });
    await expect(locateFfmpeg({ searchPath: fake, installerPackages: false })).rejects.toMatchObject({
      code: 'media.ffmpeg_missing',
    });
  });
});

describe('prepareMedia with videos', () => {
  it('prepares an MP4 as a video', async () => {
    const prepared = await prepareMedia(join(dir, 'rotated.mp4'));
    expect(prepared).toMatchObject({
      kind: 'video',
      name: 'rotated.mp4',
      mimeType: 'video/mp4',
      size: rotated.length,
      video: { width: 240, height: 320, durationMs: 2000, thumbhash: expect.any(String) },
    });
  });

  it('prepares an MP4 without a video stream as a plain file', async () => {
    const prepared = await prepareMedia(join(dir, 'audio.mp4'));
    expect(prepared).toMatchObject({ kind: 'file', name: 'audio.mp4' });
    expect(prepared.video).toBeUndefined();
  });
});
