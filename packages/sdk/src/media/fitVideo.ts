import { readFile, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { locateFfmpeg } from './ffmpeg.js';
import type { FfmpegTools } from './ffmpeg.js';
import { runFfprobe } from './ffprobe.js';
import { tooLargeAfterFit } from './fitFailure.js';
import type { FitAttempt, FitResult } from './fitFailure.js';
import type { MediaFile } from './input.js';
import { mediaError, throwIfAborted } from './mediaError.js';
import { runTool } from './runTool.js';
import { createTemporaryDir, writeTemporaryFile } from './tempFile.js';
import { displaySize, durationMs } from './videoGeometry.js';

/** Share of the byte budget the audio and video streams may use; the MP4 container takes the rest. */
const STREAM_SHARE = 0.94;
/** Below this video bitrate a picture is no longer worth sending. */
export const MIN_FIT_VIDEO_BITRATE = 120_000;
/** Longest side by video bitrate: more bits per second keep more pixels. */
const SIDE_BY_BITRATE: ReadonlyArray<readonly [number, number]> = [
  [4_000_000, 1920],
  [2_000_000, 1280],
  [1_000_000, 960],
  [500_000, 640],
  [0, 426],
];
const MAX_ATTEMPTS = 3;

/** Options of {@link fitVideo}. */
export interface FitVideoOptions {
  readonly maxBytes: number;
  /** The executables; default {@link locateFfmpeg}. */
  readonly tools?: FfmpegTools;
  readonly signal?: AbortSignal;
  /** How far the transcode is, 0..1, from ffmpeg's progress. */
  readonly onProgress?: (fraction: number) => void;
}

/**
 * Transcodes a video until it fits in `maxBytes` (docs/media.md, "Fitting the server's limit"):
 * H.264 (yuv420p) and AAC in an MP4 with its index first, rotation applied, the video bitrate
 * chosen from the duration so that the whole file fits, and scaled down (never up) to what that
 * bitrate can carry, its peaks capped at that bitrate (half a second of buffer) so that the first
 * pass fits. If it still overshoots, it tries again with a lower bitrate, up to three times.
 *
 * Errors: `media.too_large` (with `details.tried`) when even the lowest useful bitrate cannot fit
 * the duration, `media.corrupt_video`, `media.truncated_video`, `media.no_video_stream`,
 * `media.ffmpeg_missing`, `media.aborted`.
 */
export async function fitVideo(
  input: Buffer | { path: string; size: number },
  options: FitVideoOptions,
): Promise<FitResult> {
  const { file, release, ...fitted } = await fitVideoToFile(input, options);
  try {
    return { ...fitted, bytes: await readFile(file.path) };
  } finally {
    await release();
  }
}

/** A fitted video left in its private temporary file, until `release()` removes it. */
export interface FittedVideoFile extends Omit<FitResult, 'bytes'> {
  readonly file: MediaFile;
  release(): Promise<void>;
}

/**
 * {@link fitVideo}, except that the result stays in the file ffmpeg wrote, to be probed and
 * uploaded from there, piece by piece (docs/media.md, "Memory"); the caller removes it with
 * `release()`. Same errors; after an error nothing is left behind.
 */
export async function fitVideoToFile(
  input: Buffer | { path: string; size: number },
  options: FitVideoOptions,
): Promise<FittedVideoFile> {
  throwIfAborted(options.signal);
  const tools = options.tools ?? (await locateFfmpeg());
  const dir = await createTemporaryDir();
  try {
    // A file on disk is read by ffmpeg where it is; bytes are written to a private file first.
    const copy = Buffer.isBuffer(input) ? await writeTemporaryFile(dir.path, input) : undefined;
    const path = copy ?? (input as { path: string }).path;
    const size = Buffer.isBuffer(input) ? input.length : input.size;
    const fitted = await transcodeToFit(path, join(dir.path, 'fitted.mp4'), size, tools, options);
    // The copy of the input has served; only the result stays until it is released.
    if (copy !== undefined) await rm(copy, { force: true });
    return { ...fitted, release: () => dir.remove() };
  } catch (error) {
    await dir.remove();
    throw error;
  }
}

async function transcodeToFit(
  path: string,
  output: string,
  size: number,
  tools: FfmpegTools,
  options: FitVideoOptions,
): Promise<Omit<FittedVideoFile, 'release'>> {
  const report = await runFfprobe(tools.ffprobe, path, options.signal, false);
  const video = report.streams.find((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1);
  if (video === undefined) {
    throw mediaError('media.no_video_stream', 'The file has no video stream', 'Send it as a plain file');
  }
  const hasAudio = report.streams.some((s) => s.codec_type === 'audio');
  const ms = durationMs(video, report.formatDuration);
  const { width, height } = displaySize(video);
  if (ms === undefined || ms <= 0 || width === 0 || height === 0) {
    throw mediaError(
      'media.corrupt_video',
      'The video does not say how large or how long it is, so no bitrate can be chosen to fit it',
      'Re-export the video; ffprobe cannot read its size or duration',
    );
  }
  const seconds = ms / 1000;
  const budget = (options.maxBytes * 8 * STREAM_SHARE) / seconds;
  const audioBitrate = hasAudio ? (budget >= 1_000_000 ? 128_000 : 64_000) : 0;
  let videoBitrate = Math.floor(budget - audioBitrate);
  const tried: FitAttempt[] = [];
  if (videoBitrate < MIN_FIT_VIDEO_BITRATE) {
    throw tooLargeAfterFit(
      'video',
      size,
      options.maxBytes,
      tried,
      `at ${seconds.toFixed(1)} s it would need ${Math.round(videoBitrate / 1000)} kbit/s, below the ${MIN_FIT_VIDEO_BITRATE / 1000} kbit/s a picture needs`,
    );
  }
  while (tried.length < MAX_ATTEMPTS) {
    throwIfAborted(options.signal);
    const side = Math.min(Math.max(width, height), SIDE_BY_BITRATE.find(([bps]) => videoBitrate >= bps)![1]);
    await transcode(tools.ffmpeg, path, output, { side, videoBitrate, audioBitrate, seconds }, options);
    const { size: bytes, mtimeMs } = await stat(output);
    const scaled = scaleInside(width, height, side);
    tried.push({ ...scaled, videoBitrate, format: 'mp4', bytes });
    if (bytes <= options.maxBytes) {
      return { file: { path: output, size: bytes, mtimeMs }, mimeType: 'video/mp4', ext: 'mp4', tried };
    }
    videoBitrate = Math.floor(videoBitrate * (options.maxBytes / bytes) * 0.9);
    if (videoBitrate < MIN_FIT_VIDEO_BITRATE) break;
  }
  throw tooLargeAfterFit('video', size, options.maxBytes, tried);
}

async function transcode(
  ffmpeg: string,
  input: string,
  output: string,
  o: { side: number; videoBitrate: number; audioBitrate: number; seconds: number },
  options: FitVideoOptions,
): Promise<void> {
  const longest = `${o.side}`;
  const scale = `scale=w='if(gte(iw,ih),min(${longest},iw),-2)':h='if(gte(iw,ih),-2,min(${longest},ih))'`;
  const args = [
    '-v', 'error', '-nostdin', '-y', '-i', input,
    '-map', '0:v:0', '-map', '0:a:0?',
    '-vf', `${scale},setsar=1`,
    '-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p',
    // Capped at the average with half a second of buffer: x264's one-pass rate control alone
    // overshot hard content (noise) by 10-13 %, and a second full transcode doubled the time.
    '-b:v', String(o.videoBitrate), '-maxrate', String(o.videoBitrate),
    '-bufsize', String(Math.round(o.videoBitrate / 2)),
    ...(o.audioBitrate > 0 ? ['-c:a', 'aac', '-b:a', String(o.audioBitrate), '-ac', '2'] : []),
    '-map_metadata', '-1', '-movflags', '+faststart',
    '-progress', 'pipe:1', '-nostats', output,
  ]; // prettier-ignore
  let pending = '';
  const run = await runTool(ffmpeg, args, options.signal, (chunk) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) {
      const us = /^out_time_us=(\d+)/.exec(line)?.[1];
      if (us !== undefined) options.onProgress?.(Math.min(1, Number(us) / 1e6 / o.seconds));
    }
  });
  if (run.code !== 0) {
    const reason = run.stderr.trim().split('\n').pop()?.trim() || `ffmpeg exited with ${run.code}`;
    throw mediaError(
      'media.corrupt_video',
      `The video could not be transcoded to fit: ${reason}`,
      'Check that this ffmpeg has the libx264 and aac encoders (ffmpeg -encoders), or re-export the video smaller yourself',
      { details: { stderr: run.stderr } },
    );
  }
}

/** The size a video of `width`x`height` gets with its longest side at most `side`, both even. */
function scaleInside(width: number, height: number, side: number): { width: number; height: number } {
  const scale = Math.min(1, side / Math.max(width, height));
  const even = (n: number): number => Math.max(2, Math.round((n * scale) / 2) * 2);
  return width >= height
    ? { width: Math.min(width, side), height: even(height) }
    : { width: even(width), height: Math.min(height, side) };
}
