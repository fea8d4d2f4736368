import { createWriteStream } from 'node:fs';
import { link, mkdir, readFile, rm, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Result } from 'happy-session';
import type { RelayDatabase } from './db.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './fileModes.js';

/** Why a blob was not stored. */
export type PutRefusal = 'too_large' | 'exists';

/**
 * Where attachment blobs live. Blobs are the encrypted bytes exactly as uploaded; a blob is
 * addressed by its session and file name (`<uuid>.enc`), which is what the `ref`
 * `sessions/<S>/attachments/<file>` names.
 */
export interface AttachmentStore {
  /**
   * Stores the bytes of `source` as a new blob, reading it as it arrives. Stops reading past
   * `maxBytes` (nothing is kept), and never replaces an existing blob. Resolves with the size.
   */
  put(
    sessionId: string,
    file: string,
    source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    maxBytes: number,
  ): Promise<Result<number, PutRefusal>>;
  get(sessionId: string, file: string): Promise<Buffer | undefined>;
  /** Removes every blob of the session. */
  deleteSession(sessionId: string): Promise<void>;
}

/** Why an attachment name is refused: a control character, or a way out of its session folder. */
export type UnsafeName = 'control_character' | 'traversal';

/** Why `file` may not name a blob, or undefined when it may. */
export function checkAttachmentFile(file: string): UnsafeName | undefined {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\u0000-\u001f\u007f]/.test(file)) return 'control_character';
  if (file.length === 0 || file.includes('/') || file.includes('\\') || file.includes('..'))
    return 'traversal';
  return undefined;
}

/** Counts what passes through and fails once more than `maxBytes` went by. */
class ByteLimit extends Transform {
  size = 0;
  exceeded = false;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(
    chunk: Buffer,
    _encoding: BufferEncoding,
    done: (error?: Error | null, data?: Buffer) => void,
  ): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      this.exceeded = true;
      done(new Error('attachment over its limit'));
      return;
    }
    done(null, chunk);
  }
}

/** Blobs as files under `<root>/<sessionId>/<file>` (mode 0600); used when the relay has a data dir. */
export class FileAttachmentStore implements AttachmentStore {
  constructor(private readonly root: string) {}

  async put(
    sessionId: string,
    file: string,
    source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    maxBytes: number,
  ): Promise<Result<number, PutRefusal>> {
    const dir = join(this.root, sessionId);
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    // Written to a temporary name, then linked: a reader never sees half a blob, and a link fails
    // where a rename would replace an existing blob.
    const temporary = join(dir, `.${randomUUID()}.tmp`);
    const limit = new ByteLimit(maxBytes);
    try {
      await pipeline(source, limit, createWriteStream(temporary, { mode: PRIVATE_FILE_MODE, flags: 'wx' }));
      await link(temporary, join(dir, file));
      return { ok: true, value: limit.size };
    } catch (error) {
      if (limit.exceeded) return { ok: false, error: 'too_large' };
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') return { ok: false, error: 'exists' };
      throw error;
    } finally {
      await unlink(temporary).catch(() => undefined);
    }
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

  async put(
    sessionId: string,
    file: string,
    source: AsyncIterable<Uint8Array> | Iterable<Uint8Array>,
    maxBytes: number,
  ): Promise<Result<number, PutRefusal>> {
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of source) {
      size += chunk.byteLength;
      if (size > maxBytes) return { ok: false, error: 'too_large' };
      chunks.push(chunk);
    }
    const inserted = this.db
      .prepare(
        `INSERT INTO attachments (session_id, file, data, created_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (session_id, file) DO NOTHING`,
      )
      .run(sessionId, file, Buffer.concat(chunks), Date.now()).changes;
    return inserted === 1 ? { ok: true, value: size } : { ok: false, error: 'exists' };
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
