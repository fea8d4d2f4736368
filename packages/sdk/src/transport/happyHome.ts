import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** Happy's public API server, the default of the CLI, happy-agent and the app (docs/wire.md §0). */
export const DEFAULT_SERVER_URL = 'https://api.cluster-fluster.com';

/** The environment variables this module reads. */
export interface HappyEnv {
  readonly HAPPY_HOME_DIR?: string | undefined;
  readonly HAPPY_SERVER_URL?: string | undefined;
}

/**
 * The Happy home directory: `HAPPY_HOME_DIR` with a leading `~` expanded, otherwise `~/.happy`
 * (docs/wire.md §0, §1.5).
 */
export function resolveHappyHome(env: HappyEnv = process.env): string {
  const configured = env.HAPPY_HOME_DIR;
  if (!configured) return join(homedir(), '.happy');
  if (configured === '~') return homedir();
  if (configured.startsWith('~/')) return join(homedir(), configured.slice(2));
  return configured;
}

/**
 * The server URL with the CLI's precedence (docs/wire.md §0): `HAPPY_SERVER_URL`, then `serverUrl`
 * in `<home>/settings.json`, then {@link DEFAULT_SERVER_URL}. A trailing `/` is removed, so paths
 * can be appended as they are. An unreadable or malformed settings file is skipped, as the CLI
 * does.
 */
export function resolveServerUrl(env: HappyEnv = process.env, home = resolveHappyHome(env)): string {
  const fromEnv = env.HAPPY_SERVER_URL;
  if (fromEnv) return trimSlash(fromEnv);
  const fromSettings = readSettingsServerUrl(join(home, 'settings.json'));
  return trimSlash(fromSettings ?? DEFAULT_SERVER_URL);
}

function readSettingsServerUrl(file: string): string | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined;
  }
  const url = (raw as { serverUrl?: unknown } | null)?.serverUrl;
  return typeof url === 'string' && url !== '' ? url : undefined;
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, '');
}
