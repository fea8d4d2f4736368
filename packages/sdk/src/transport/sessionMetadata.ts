import { homedir, hostname } from 'node:os';
import { basename } from 'node:path';
import { SdkError } from '../errors.js';
import type { StateObject } from '../ports/sessionState.js';

/** Options of {@link sessionMetadata}. */
export interface SessionMetadataOptions {
  /** Working directory shown as the session subtitle; default `process.cwd()`. */
  readonly path?: string;
  /** Session title; default the last segment of `path`. */
  readonly title?: string;
  /** Happy home directory, recorded as `happyHomeDir`. */
  readonly happyHomeDir?: string;
  readonly now?: number;
}

/** The flavor this SDK announces unless the caller sets one (docs/wire.md §4.2). */
export const DEFAULT_FLAVOR = 'happy-session';

/**
 * Session metadata as the CLI writes it at start (docs/wire.md §4.2): `path`, `host`, `os`,
 * `homeDir`, a `summary` (the title), `lifecycleState: 'running'`, `startedBy`, `hostPid`,
 * `flavor`. `overrides` are merged on top, so a caller can add fields or replace any of these.
 * No `version` field: a present one below 0.10.0 makes the app warn about an outdated CLI.
 *
 * @throws {SdkError} `transport.invalid_metadata` when `path` or `host` ends up not a string
 *   (the app then reads the whole metadata as null).
 */
export function sessionMetadata(
  overrides: StateObject = {},
  options: SessionMetadataOptions = {},
): StateObject {
  const now = options.now ?? Date.now();
  const path = options.path ?? process.cwd();
  const metadata: StateObject = {
    path,
    host: hostname(),
    os: process.platform,
    homeDir: homedir(),
    summary: { text: options.title ?? (basename(path) || 'Session'), updatedAt: now },
    flavor: DEFAULT_FLAVOR,
    lifecycleState: 'running',
    lifecycleStateSince: now,
    startedBy: 'terminal',
    startedFromDaemon: false,
    hostPid: process.pid,
    ...(options.happyHomeDir ? { happyHomeDir: options.happyHomeDir } : {}),
    ...overrides,
  };
  for (const field of ['path', 'host'] as const) {
    if (typeof metadata[field] !== 'string') {
      throw new SdkError('transport.invalid_metadata', `Session metadata needs a string "${field}".`, {
        hint: `the Happy app discards metadata without a string ${field}; pass one or leave it to the default`,
      });
    }
  }
  return metadata;
}
