import { UNKNOWN_MIME_TYPE } from './detect.js';
import { locateFfmpeg } from './ffmpeg.js';
import { loadFileType } from './libraries.js';
import type { FfmpegTools } from './ffmpeg.js';
import { runFfprobe, toNumber } from './ffprobe.js';
import type { ProbedStream } from './ffprobe.js';
import { mediaError, throwIfAborted } from './mediaError.js';
import { extractPoster } from './poster.js';
import { withTemporaryFile } from './tempFile.js';
import { thumbhashFromImage } from './thumbhash.js';
import { displaySize, durationMs } from './videoGeometry.js';

/** What a `video` message needs to know about a video (session protocol v2 `video`). */
export interface VideoProbe {
  /** Width as displayed: pixel aspect and rotation (90/270 swap the sides) applied. */
  width: number;
  height: number;
  durationMs: number;
  mimeType: string;
  /** The poster frame as a PNG, displayed the right way up, at most 480 px on its longest side. */
  poster: Buffer;
  /** Standard-base64 ThumbHash of the poster frame (docs/wire.md §8.3). */
  thumbhash: string;
}

/** Options of {@link probeVideo}. */
export interface ProbeVideoOptions {
  /** The executables to run; default: {@link locateFfmpeg}. */
  tools?: FfmpegTools;
  signal?: AbortSignal;
}

/**
 * Reads a video's displayed size and duration with ffprobe, checks that its data is complete,
 * extracts a poster frame with ffmpeg and hashes it. Bytes are written to a private temporary file
 * first: an MP4 usually keeps its index at the end, which a pipe cannot seek to.
 *
 * Errors: `media.ffmpeg_missing`, `media.truncated_video`, `media.corrupt_video`,
 * `media.no_video_stream` (a container with only audio), `media.aborted`.
 */
export async function probeVideo(
  input: Buffer | { path: string },
  options: ProbeVideoOptions = {},
): Promise<VideoProbe> {
  throwIfAborted(options.signal);
  const tools = options.tools ?? (await locateFfmpeg());
  if (Buffer.isBuffer(input))
    return withTemporaryFile(input, (path) => probeFile(path, tools, options.signal));
  return probeFile(input.path, tools, options.signal);
}

async function probeFile(
  path: string,
  tools: FfmpegTools,
  signal: AbortSignal | undefined,
): Promise<VideoProbe> {
  const report = await runFfprobe(tools.ffprobe, path, signal);
  const stream = report.streams.find((s) => s.codec_type === 'video' && s.disposition?.attached_pic !== 1);
  if (stream === undefined) {
    throw mediaError(
      'media.no_video_stream',
      'The file has no video stream',
      'Send it as a plain file (audio-only files are not videos)',
    );
  }
  const { width, height } = displaySize(stream);
  const duration = durationMs(stream, report.formatDuration);
  if (width === 0 || height === 0 || duration === undefined) {
    throw mediaError(
      'media.corrupt_video',
      'The video does not say how large or how long it is',
      'Re-export the video; ffprobe cannot read its size or duration',
    );
  }
  assertComplete(stream);
  throwIfAborted(signal);
  const poster = await extractPoster(tools.ffmpeg, path, {
    streamIndex: stream.index,
    width,
    height,
    durationMs: duration,
    signal,
  });
  const thumbhash = await thumbhashFromImage(poster);
  const { fileTypeFromFile } = await loadFileType();
  const mimeType = (await fileTypeFromFile(path))?.mime ?? UNKNOWN_MIME_TYPE;
  return { width, height, durationMs: duration, mimeType, poster, thumbhash };
}

/** A container that lists more frames than could be read lost its tail: the file was cut short. */
function assertComplete(stream: ProbedStream): void {
  const listed = toNumber(stream.nb_frames);
  const read = toNumber(stream.nb_read_packets);
  if (listed !== undefined && read !== undefined && listed > 0 && read < listed) {
    throw mediaError(
      'media.truncated_video',
      `The video is incomplete: only ${read} of its ${listed} frames are in the file`,
      'The file was cut short (an interrupted download or copy); attach a complete copy',
      { details: { framesListed: listed, framesRead: read } },
    );
  }
}
