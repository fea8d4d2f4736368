import { chmodSync, closeSync, existsSync, lstatSync, mkdirSync, openSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { SdkError } from 'happy-session';
import type { Logger } from 'happy-session';
import type { RelayErrorCode } from './errorCodes.js';

/** Mode of every directory the relay keeps data in: its owner only. */
export const PRIVATE_DIR_MODE = 0o700;
/** Mode of every file the relay keeps data in: its owner only. */
export const PRIVATE_FILE_MODE = 0o600;

/** Bits that let anyone but the owner in. */
const OTHERS = 0o077;

function tighten(path: string, mode: number, loosened: string[]): void {
  const stat = lstatSync(path);
  if (stat.isSymbolicLink() || (stat.mode & OTHERS) === 0) return;
  try {
    chmodSync(path, mode);
  } catch (cause) {
    throw new SdkError<RelayErrorCode>(
      'relay.data_dir_insecure',
      `The relay cannot make ${path} private to its owner.`,
      {
        hint: 'the data directory must belong to the user who runs the relay; pick one of your own with --data',
        cause,
      },
    );
  }
  loosened.push(path);
}

function tightenTree(dir: string, loosened: string[]): void {
  tighten(dir, PRIVATE_DIR_MODE, loosened);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) tightenTree(path, loosened);
    else if (entry.isFile()) tighten(path, PRIVATE_FILE_MODE, loosened);
  }
}

/**
 * Makes `dataDir` the relay's private directory (docs/relay.md, "Files on disk"): created 0700
 * when missing; an existing directory, and every file and folder under it, loses any access of
 * group and others, with one warning that lists what was loosened. The database holds the secret
 * that signs tokens, so nobody but the owner may read it.
 *
 * @throws {SdkError} `relay.data_dir_insecure` when a mode cannot be changed (another user's
 *   directory).
 */
export function securePrivateDir(dataDir: string, logger: Logger): void {
  if (!existsSync(dataDir)) {
    mkdirSync(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    return;
  }
  const loosened: string[] = [];
  tightenTree(dataDir, loosened);
  if (loosened.length > 0) {
    logger.warn('relay data dir was readable by other users; made private (0700 folders, 0600 files)', {
      dataDir,
      changed: loosened,
    });
  }
}

/** Creates `path` as an empty file of mode 0600 unless it exists, so what SQLite adds inherits it. */
export function createPrivateFile(path: string): void {
  closeSync(openSync(path, 'a', PRIVATE_FILE_MODE));
}
