import { POSTER_MAX_SIDE } from './limits.js';
import { mediaError } from './mediaError.js';
import { runTool } from './runTool.js';

/** Options of {@link extractPoster}. */
export interface PosterOptions {
  /** ffprobe's index of the video stream to take the frame from. */
  streamIndex: number;
  /** The video's displayed size (rotation and pixel aspect applied); the poster keeps its aspect. */
  width: number;
  height: number;
  durationMs: number;
  signal?: AbortSignal;
}

/**
 * Extracts one frame as a PNG, displayed the right way up (ffmpeg applies the rotation metadata
 * while decoding) and at most {@link POSTER_MAX_SIDE} pixels on its longest side. The frame is taken
 * a tenth of the way in, at most one second, to skip the black first frame many recordings start
 * with; a video too short to seek into falls back to its first frame.
 *
 * Throws `media.corrupt_video` when no frame can be decoded.
 */
export async function extractPoster(ffmpeg: string, path: string, options: PosterOptions): Promise<Buffer> {
  const atMs = Math.min(1000, Math.floor(options.durationMs / 10));
  const size = fitInside(options.width, options.height, POSTER_MAX_SIDE);
  let last = await frameAt(ffmpeg, path, atMs, size, options);
  if (last.png.length === 0 && atMs > 0) last = await frameAt(ffmpeg, path, 0, size, options);
  if (last.png.length === 0) {
    throw mediaError(
      'media.corrupt_video',
      `No frame of the video can be decoded${last.reason ? `: ${last.reason}` : ''}`,
      'The video data is damaged or uses a codec this ffmpeg cannot decode; re-export it (H.264 MP4 plays everywhere), or send it as a plain file',
    );
  }
  return last.png;
}

async function frameAt(
  ffmpeg: string,
  path: string,
  atMs: number,
  size: { width: number; height: number },
  options: PosterOptions,
): Promise<{ png: Buffer; reason: string }> {
  const run = await runTool(
    ffmpeg,
    [
      '-v',
      'error',
      '-nostdin',
      '-ss',
      (atMs / 1000).toFixed(3),
      '-i',
      path,
      '-map',
      `0:${options.streamIndex}`,
      '-frames:v',
      '1',
      '-vf',
      `scale=${size.width}:${size.height},setsar=1`,
      '-f',
      'image2pipe',
      '-c:v',
      'png',
      'pipe:1',
    ],
    options.signal,
  );
  // ffmpeg repeats a decode error per packet; the last line says enough.
  const reason = run.stderr.trim().split('\n').pop()?.trim() ?? '';
  return { png: run.code === 0 ? run.stdout : Buffer.alloc(0), reason };
}

function fitInside(width: number, height: number, maxSide: number): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  return { width: Math.max(1, Math.round(width * scale)), height: Math.max(1, Math.round(height * scale)) };
}
