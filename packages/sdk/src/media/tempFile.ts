import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A private temporary directory (mode 0700 by `mkdtemp`) and how to remove it with all it holds. */
export interface TemporaryDir {
  readonly path: string;
  remove(): Promise<void>;
}

/**
 * Creates a private temporary directory, for a caller that keeps it past one call (a fitted video
 * stays in one until it is uploaded). ffmpeg and ffprobe read and write files there: an MP4
 * usually keeps its index at the end, which a pipe cannot seek to.
 */
export async function createTemporaryDir(): Promise<TemporaryDir> {
  const path = await mkdtemp(join(tmpdir(), 'happy-media-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Runs `use` with a private temporary directory, removed afterwards whatever happens. */
export async function withTemporaryDir<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await createTemporaryDir();
  try {
    return await use(dir.path);
  } finally {
    await dir.remove();
  }
}

/** Writes `bytes` to a private file in `dir` and returns its path. */
export async function writeTemporaryFile(dir: string, bytes: Buffer): Promise<string> {
  const path = join(dir, 'input');
  await writeFile(path, bytes, { mode: 0o600 });
  return path;
}

/** Runs `use` with `bytes` written to a private temporary file, removed afterwards. */
export function withTemporaryFile<T>(bytes: Buffer, use: (path: string) => Promise<T>): Promise<T> {
  return withTemporaryDir(async (dir) => use(await writeTemporaryFile(dir, bytes)));
}
