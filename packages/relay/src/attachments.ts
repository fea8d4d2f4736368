import { mkdir, readFile, rm, writeFile, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { RelayDatabase } from './db.js';

/**
 * Where attachment blobs live. Blobs are the encrypted bytes exactly as uploaded; a blob is
 * addressed by its session and file name (`<uuid>.enc`), which is what the `ref`
 * `sessions/<S>/attachments/<file>` names.
 */
export interface AttachmentStore {
  put(sessionId: string, file: string, data: Buffer): Promise<void>;
  get(sessionId: string, file: string): Promise<Buffer | undefined>;
  /** Removes every blob of the session. */
  deleteSession(sessionId: string): Promise<void>;
}

/** True for a file name that cannot climb out of its session folder. */
export function isSafeAttachmentFile(file: string): boolean {
  return file.length > 0 && !file.includes('/') && !file.includes('\\') && !file.includes('..');
}

/** Blobs as files under `<root>/<sessionId>/<file>`; used when the relay has a data dir. */
export class FileAttachmentStore implements AttachmentStore {
  constructor(private readonly root: string) {}

  async put(sessionId: string, file: string, data: Buffer): Promise<void> {
    const dir = join(this.root, sessionId);
    await mkdir(dir, { recursive: true });
    // Write then rename, so a reader never sees half a blob.
    const temporary = join(dir, `.${randomUUID()}.tmp`);
    await writeFile(temporary, data);
    await rename(temporary, join(dir, file));
  }

  async get(sessionId: string, file: string): Promise<Buffer | undefined> {
    try {
      return await readFile(join(this.root, sessionId, file));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async deleteSession(sessionId: string): Promise<void> {
    await rm(join(this.root, sessionId), { recursive: true, force: true });
  }
}

/** Blobs in the relay's SQLite database; used by an in-memory relay. */
export class SqliteAttachmentStore implements AttachmentStore {
  constructor(private readonly db: RelayDatabase) {}

  async put(sessionId: string, file: string, data: Buffer): Promise<void> {
    this.db
      .prepare(
        `INSERT INTO attachments (session_id, file, data, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (session_id, file) DO UPDATE SET data = excluded.data`,
      )
      .run(sessionId, file, data, Date.now());
  }

  async get(sessionId: string, file: string): Promise<Buffer | undefined> {
    const row = this.db
      .prepare('SELECT data FROM attachments WHERE session_id = ? AND file = ?')
      .get(sessionId, file) as { data: Buffer } | undefined;
    return row?.data;
  }

  async deleteSession(sessionId: string): Promise<void> {
    this.db.prepare('DELETE FROM attachments WHERE session_id = ?').run(sessionId);
  }
}
