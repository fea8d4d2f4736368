import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Runs `use` with a private temporary directory (mode 0700 by `mkdtemp`), removed afterwards
 * whatever happens. ffmpeg and ffprobe read and write files there: an MP4 usually keeps its index
 * at the end, which a pipe cannot seek to.
 */
export async function withTemporaryDir<T>(use: (dir: string) => Promise<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), 'happy-media-'));
  try {
    return await use(dir);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Runs `use` with `bytes` written to a private temporary file, removed afterwards. */
export function withTemporaryFile<T>(bytes: Buffer, use: (path: string) => Promise<T>): Promise<T> {
  return withTemporaryDir(async (dir) => {
    const path = join(dir, 'input');
    await writeFile(path, bytes, { mode: 0o600 });
    return use(path);
  });
}
