import { toNumber, toRatio } from './ffprobe.js';
import type { ProbedStream } from './ffprobe.js';

/**
 * The rotation a player applies to a video stream, in degrees: from the display matrix side data
 * (how current ffmpeg reports it) or the legacy `rotate` tag (older ffmpeg builds).
 */
export function streamRotation(stream: ProbedStream): number {
  const matrix = stream.side_data_list?.find((data) => data.rotation !== undefined);
  if (matrix?.rotation !== undefined) return matrix.rotation;
  return toNumber(stream.tags?.rotate) ?? 0;
}

/**
 * The size a player shows a video stream at: non-square pixels stretched by the sample aspect
 * ratio, then sides swapped for a quarter turn (90 or 270 degrees, either direction).
 */
export function displaySize(stream: ProbedStream): { width: number; height: number } {
  const codedWidth = stream.width ?? 0;
  const height = stream.height ?? 0;
  const sampleAspect = toRatio(stream.sample_aspect_ratio) ?? 1;
  const width = Math.round(codedWidth * sampleAspect);
  const quarterTurn = Math.abs(Math.round(streamRotation(stream) / 90)) % 2 === 1;
  return quarterTurn ? { width: height, height: width } : { width, height };
}

/**
 * The stream's duration in whole milliseconds: the stream's own, else the container's, else (a
 * live recording without an index) the packets read divided by the frame rate.
 */
export function durationMs(stream: ProbedStream, formatDuration: number | undefined): number | undefined {
  const seconds = toNumber(stream.duration) ?? formatDuration;
  if (seconds !== undefined) return Math.round(seconds * 1000);
  const packets = toNumber(stream.nb_read_packets);
  const frameRate = toRatio(stream.avg_frame_rate);
  if (packets === undefined || frameRate === undefined) return undefined;
  return Math.round((packets / frameRate) * 1000);
}
