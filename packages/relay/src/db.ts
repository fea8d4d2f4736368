import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { SdkError } from 'happy-session';
import { MIGRATIONS, SCHEMA_VERSION } from './schema.js';

/** The relay's database handle (better-sqlite3). */
export type RelayDatabase = Database.Database;

/** File name of the database inside a data dir. */
export const DATABASE_FILE = 'relay.sqlite';

/**
 * Opens the relay database: `<dataDir>/relay.sqlite` when a data dir is given, otherwise an
 * in-memory database. Applies pending migrations of {@link MIGRATIONS}.
 */
export function openDatabase(dataDir: string | undefined): RelayDatabase {
  let db: RelayDatabase;
  if (dataDir === undefined) {
    db = new Database(':memory:');
  } else {
    mkdirSync(dataDir, { recursive: true });
    db = new Database(join(dataDir, DATABASE_FILE));
    db.pragma('journal_mode = WAL');
  }
  db.pragma('foreign_keys = ON');
  migrate(db);
  return db;
}

function migrate(db: RelayDatabase): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > SCHEMA_VERSION) {
    db.close();
    throw new SdkError(
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
