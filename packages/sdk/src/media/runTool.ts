import { spawn } from 'node:child_process';
import { abortedError, mediaError } from './mediaError.js';

/** What a finished ffmpeg/ffprobe run produced. */
export interface ToolRun {
  /** Exit code; null when the process was killed by a signal. */
  code: number | null;
  stdout: Buffer;
  /** The last few kilobytes of stderr, enough for the error ffmpeg printed last. */
  stderr: string;
}

const STDERR_TAIL_BYTES = 8 * 1024;

/**
 * Runs an ffmpeg tool to completion with no shell and no stdin, collecting its output. An abort
 * kills the process and rejects with `media.aborted`; a tool that cannot be started (deleted or
 * not executable since it was located) rejects with `media.ffmpeg_missing`.
 */
export function runTool(
  executable: string,
  args: readonly string[],
  signal?: AbortSignal,
  /** Sees stdout as it comes (ffmpeg's `-progress pipe:1` lines), besides collecting it. */
  onStdout?: (chunk: string) => void,
): Promise<ToolRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(executable, args, { stdio: ['ignore', 'pipe', 'pipe'], signal, windowsHide: true });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout.push(chunk);
      onStdout?.(chunk.toString('utf8'));
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-STDERR_TAIL_BYTES);
    });
    child.on('error', (cause) => {
      if (signal?.aborted) reject(abortedError(signal));
      else
        reject(
          mediaError(
            'media.ffmpeg_missing',
            `${executable} could not be started: ${cause.message}`,
            'Reinstall ffmpeg, or check the permissions of this executable',
            { cause },
          ),
        );
    });
    child.on('close', (code) => {
      if (signal?.aborted) reject(abortedError(signal));
      else resolve({ code, stdout: Buffer.concat(stdout), stderr });
    });
  });
}
