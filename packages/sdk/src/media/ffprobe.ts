import * as z from '../zod.js';
import { mediaError } from './mediaError.js';
import type { MediaError } from './mediaError.js';
import { runTool } from './runTool.js';

/** ffprobe prints most numbers as strings, and "N/A" where it has none. */
const numberLike = z.optional(z.union([z.number(), z.string()]));

const streamSchema = z.object({
  index: z.number(),
  codec_type: z.optional(z.string()),
  width: z.optional(z.number()),
  height: z.optional(z.number()),
  sample_aspect_ratio: z.optional(z.string()),
  avg_frame_rate: z.optional(z.string()),
  duration: numberLike,
  nb_frames: numberLike,
  nb_read_packets: numberLike,
  disposition: z.optional(z.object({ attached_pic: z.optional(z.number()) })),
  tags: z.optional(z.record(z.string(), z.string())),
  side_data_list: z.optional(
    z.array(z.object({ side_data_type: z.optional(z.string()), rotation: z.optional(z.number()) })),
  ),
});

const reportSchema = z.object({
  streams: z._default(z.array(streamSchema), []),
  format: z.optional(z.object({ format_name: z.optional(z.string()), duration: numberLike })),
});

/** One stream as ffprobe describes it (the fields video probing reads). */
export type ProbedStream = z.output<typeof streamSchema>;

/** What ffprobe reports about a media file, after every packet has been read. */
export interface ProbeReport {
  streams: ProbedStream[];
  formatName: string | undefined;
  /** Container duration in seconds, when the container records one. */
  formatDuration: number | undefined;
}

/**
 * Runs ffprobe on a file, reading every packet (`-count_packets`) so a file whose data stops
 * early can be told apart from a whole one; demuxing without decoding keeps this cheap.
 *
 * Errors: `media.truncated_video` (no `moov` index: the tail of an MP4 is missing),
 * `media.corrupt_video` (ffprobe cannot read it).
 */
export async function runFfprobe(
  ffprobe: string,
  path: string,
  signal?: AbortSignal,
  /** `false` reads the headers only: enough to plan a transcode, which reads every packet anyway. */
  countPackets = true,
): Promise<ProbeReport> {
  const run = await runTool(
    ffprobe,
    [
      '-v',
      'error',
      ...(countPackets ? ['-count_packets'] : []),
      '-show_streams',
      '-show_format',
      '-of',
      'json',
      path,
    ],
    signal,
  );
  if (run.code !== 0) throw unreadableVideo(run.stderr.replaceAll(`${path}: `, ''));
  let parsed: z.output<typeof reportSchema>;
  try {
    parsed = reportSchema.parse(JSON.parse(run.stdout.toString('utf8')));
  } catch (cause) {
    throw mediaError(
      'media.corrupt_video',
      'ffprobe printed a report that cannot be read',
      'Check that the ffprobe on the PATH is a real ffprobe',
      { cause },
    );
  }
  return {
    streams: parsed.streams,
    formatName: parsed.format?.format_name,
    formatDuration: toNumber(parsed.format?.duration),
  };
}

/** Parses one of ffprobe's numeric fields; undefined for absent, "N/A" and non-finite values. */
export function toNumber(value: number | string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = typeof value === 'number' ? value : Number.parseFloat(value);
  return Number.isFinite(n) ? n : undefined;
}

/** Parses ffprobe's ratios ("16:9", "30000/1001"); undefined for "0:1", "0/0" and the like. */
export function toRatio(value: string | undefined): number | undefined {
  const match = value?.match(/^(\d+)[:/](\d+)$/);
  if (!match) return undefined;
  const ratio = Number(match[1]) / Number(match[2]);
  return Number.isFinite(ratio) && ratio > 0 ? ratio : undefined;
}

function unreadableVideo(stderr: string): MediaError {
  const reason = lastLine(stderr);
  // An MP4 writer puts its index (`moov`) last unless told otherwise, so a cut file loses it.
  if (/moov atom not found/i.test(stderr)) {
    return mediaError(
      'media.truncated_video',
      'The video is incomplete: its index (the MP4 "moov" box) is missing',
      'The file was cut short (an interrupted download or a recording still in progress); attach a complete copy',
      { details: { stderr } },
    );
  }
  return mediaError(
    'media.corrupt_video',
    `The video cannot be read: ${reason}`,
    'The file is damaged or not really a video; re-export it, or send it as a plain file',
    {
      details: { stderr },
    },
  );
}

function lastLine(text: string): string {
  const lines = text.trim().split('\n');
  return lines[lines.length - 1]?.trim() || 'ffprobe failed without a message';
}
