import { SdkError } from 'happy-session';
import type { Logger } from 'happy-session';
import { join } from 'node:path';
import { loadCredentials, resolveHappyHome } from 'happy-session/node';
import type { HappyEnv } from 'happy-session/node';
import { runRelayServer, viewerUrl } from 'happy-session-relay';
import type { Relay } from 'happy-session-relay';
import type { Print } from '../output.js';
import type { CliErrorCode } from '../errorCodes.js';

/** Options of `happy-session serve`. */
export interface ServeOptions {
  /** TCP port; default 3005; 0 picks a free one. */
  readonly port?: number;
  /** Interface to bind; default 127.0.0.1 (nothing is exposed by accident). */
  readonly host?: string;
  /** Directory for the SQLite database and attachments; default {@link defaultDataDir}. */
  readonly data?: string;
  /** Keep nothing on disk: a throwaway relay whose sessions end with it. */
  readonly memory?: boolean;
  /** Attachment storage per account, in MB; default the relay's (1024). */
  readonly attachmentQuota?: number;
  /** Print the viewer link with the master secret itself instead of a one-time link. */
  readonly printSecret?: boolean;
  /** Print `{url, port, dataDir}` as one JSON line instead of the text. */
  readonly json?: boolean;
}

/** The port `serve` listens on unless told otherwise (the Happy server's development port). */
export const DEFAULT_PORT = 3005;

/** Where `serve` keeps its data unless told otherwise: `relay/` in the happy home (`~/.happy/relay`). */
export function defaultDataDir(env: HappyEnv = process.env): string {
  return join(resolveHappyHome(env), 'relay');
}

/**
 * `happy-session serve`: runs the embedded relay (`runRelayServer`) and prints its URL and a
 * one-time viewer link. It never prints a secret unless asked with `printSecret` (docs/cli.md,
 * docs/viewer.md). The relay closes itself on SIGINT or SIGTERM, after which the process exits 0.
 *
 * @throws {SdkError} `cli.port_in_use` when the port is taken; `relay.store_not_writable`,
 *   `relay.data_dir_insecure` for a data dir the relay cannot use; other start failures as they are.
 */
export async function serveCommand(
  options: ServeOptions,
  print: Print,
  logger?: Logger,
  env: HappyEnv = process.env,
): Promise<Relay> {
  const port = options.port ?? DEFAULT_PORT;
  const dataDir = options.memory ? undefined : (options.data ?? defaultDataDir(env));
  let relay: Relay;
  try {
    relay = await runRelayServer({
      port,
      ...(options.host !== undefined ? { host: options.host } : {}),
      ...(dataDir !== undefined ? { dataDir } : {}),
      ...(options.attachmentQuota !== undefined
        ? { limits: { attachmentQuotaBytes: Math.round(options.attachmentQuota * 1024 * 1024) } }
        : {}),
      ...(logger ? { logger } : {}),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new SdkError<CliErrorCode>('cli.port_in_use', `Port ${port} is already in use.`, {
        hint: 'pick another with --port, or --port 0 for a free one',
        cause: error,
      });
    }
    throw error;
  }
  if (options.json) {
    print(JSON.stringify({ url: relay.url, port: relay.port, dataDir: dataDir ?? null }));
    return relay;
  }
  print(`happy-session relay listening on ${relay.url}`);
  print(dataDir !== undefined ? `data: ${dataDir}` : 'data: in memory (gone when the relay stops)');
  print(`point agents at it: HAPPY_SERVER_URL=${relay.url}`);
  print(viewerLine(relay, options.printSecret === true, env));
  print('a link opens the viewer once: `happy-session link` prints a new one while the relay runs.');
  print('Ctrl-C stops it.');
  return relay;
}

/**
 * How to open the viewer on the account of this machine's `agent.key`: a one-time link (the page
 * fetches the sealed secret once and keeps the key in the browser), or with `printSecret` the
 * link that holds the secret itself. Without a master secret, how to get one.
 */
function viewerLine(relay: Relay, printSecret: boolean, env: HappyEnv): string {
  let masterSecret: Uint8Array | undefined;
  try {
    const credentials = loadCredentials({ env });
    if (credentials.kind === 'master') masterSecret = credentials.masterSecret;
  } catch {
    // No usable agent.key: say how to get one.
  }
  if (!masterSecret) {
    return `viewer: ${relay.url}/ (run \`happy-session keygen\` first for an account on this relay, or \`happy-session login\` to use your Happy account's key; then serve prints a link that opens it)`;
  }
  if (printSecret)
    return `viewer (holds your master secret, keep it private): ${viewerUrl(relay.url, masterSecret)}`;
  return `viewer (one-time link; the page keeps the key in your browser): ${relay.viewerLink(masterSecret)}`;
}
