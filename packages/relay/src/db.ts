import { accessSync, constants, existsSync, mkdirSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SdkError, silentLogger } from 'happy-session';
import type { Logger } from 'happy-session';
import { createPrivateFile, PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, securePrivateDir } from './fileModes.js';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';
import type { RelayErrorCode } from './errorCodes.js';

/** The relay's database handle (better-sqlite3). */
export type RelayDatabase = Database.Database;

/** File name of the database inside a data dir. */
export const DATABASE_FILE = 'relay.sqlite';
/** Subfolder of the data dir that holds attachment blobs. */
export const ATTACHMENTS_DIR = 'attachments';

function notWritable(path: string, cause: unknown): SdkError<RelayErrorCode> {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new SdkError<RelayErrorCode>(
    'relay.store_not_writable',
    `The relay cannot write to ${path}: ${reason}`,
    {
      hint: 'give the user who runs the relay write access to the data directory, or pick another with --data',
      cause,
    },
  );
}

/** Fails unless this process can write `path` (root on a read-only mount included). */
function assertWritable(path: string): void {
  try {
    accessSync(path, constants.W_OK);
  } catch (cause) {
    throw notWritable(path, cause);
  }
}

/**
 * Opens the relay database: `<dataDir>/relay.sqlite` when a data dir is given, otherwise an
 * in-memory database. Applies pending migrations of {@link MIGRATIONS}.
 *
 * With a data dir it first makes sure the store can be used (docs/relay.md, "Files on disk"): the
 * directory and the database are writable (checked with a real write), the directory is private
 * (0700, files 0600; looser modes are fixed with a warning), and `attachments/` exists.
 *
 * @throws {SdkError} `relay.store_not_writable` for a store the relay cannot write,
 *   `relay.data_dir_insecure` when its modes cannot be tightened, `relay.schema_too_new`.
 */
export function openDatabase(dataDir: string | undefined, logger: Logger = silentLogger): RelayDatabase {
  if (dataDir === undefined) {
    const db = new Database(':memory:');
    db.pragma('foreign_keys = ON');
    migrate(db);
    return db;
  }
  try {
    mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
  } catch (cause) {
    throw notWritable(dataDir, cause);
  }
  assertWritable(dataDir);
  const file = join(dataDir, DATABASE_FILE);
  if (existsSync(file)) assertWritable(file);
  securePrivateDir(dataDir, logger);
  createPrivateFile(file);
  let db: RelayDatabase;
  try {
    db = new Database(file);
  } catch (cause) {
    throw notWritable(file, cause);
  }
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
    probeDatabase(db, file);
    probeAttachments(join(dataDir, ATTACHMENTS_DIR));
  } catch (error) {
    db.close();
    throw isReadOnly(error) ? notWritable(file, error) : error;
  }
  return db;
}

/** True for SQLite's errors of a database it may only read. */
function isReadOnly(error: unknown): boolean {
  const code = (error as { code?: unknown }).code;
  return (
    typeof code === 'string' && (code.startsWith('SQLITE_READONLY') || code.startsWith('SQLITE_CANTOPEN'))
  );
}

/** A real write, so a database SQLite opened read-only fails here and not on the first request. */
function probeDatabase(db: RelayDatabase, file: string): void {
  try {
    db.prepare('INSERT OR REPLACE INTO relay_meta (key, value) VALUES (?, ?)').run(
      'opened_at',
      String(Date.now()),
    );
  } catch (cause) {
    throw notWritable(file, cause);
  }
}

function probeAttachments(dir: string): void {
  const probe = join(dir, `.probe-${process.pid}`);
  try {
    mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
    writeFileSync(probe, '', { mode: PRIVATE_FILE_MODE });
    unlinkSync(probe);
  } catch (cause) {
    throw notWritable(dir, cause);
  }
}

function migrate(db: RelayDatabase): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    db.close();
    throw new SdkError<RelayErrorCode>(
      'relay.schema_too_new',
      `The relay database has schema version ${current}, newer than this relay (${SCHEMA_VERSION}).`,
      { hint: 'Upgrade happy-session or point the relay at another data directory.' },
    );
  }
  for (let version = current; version < SCHEMA_VERSION; version += 1) {
    const step = MIGRATIONS[version];
    if (step === undefined) continue;
    db.transaction(() => {
      db.exec(step);
      db.pragma(`user_version = ${version + 1}`);
    })();
  }
}
