import { SdkError } from 'happy-session';
import type { Logger } from 'happy-session';
import { runRelayServer } from 'happy-session-relay';
import type { Relay } from 'happy-session-relay';
import type { Print } from '../output.js';
import { loadCredentials } from 'happy-session/node';
import { viewerUrl } from 'happy-session-relay';

/** Options of `happy-session serve`. */
export interface ServeOptions {
  /** TCP port; default 3005; 0 picks a free one. */
  readonly port?: number;
  /** Interface to bind; default 127.0.0.1 (nothing is exposed by accident). */
  readonly host?: string;
  /** Directory for the SQLite database and attachments; default in memory. */
  readonly data?: string;
  /** Print `{url, port, dataDir}` as one JSON line instead of the text. */
  readonly json?: boolean;
}

/** The port `serve` listens on unless told otherwise (the Happy server's development port). */
export const DEFAULT_PORT = 3005;

/**
 * `happy-session serve`: runs the embedded relay (`runRelayServer`) and prints its URL. The relay
 * closes itself on SIGINT or SIGTERM, after which the process exits with 0.
 *
 * @throws {SdkError} `cli.port_in_use` when the port is taken; other start failures as they are.
 */
export async function serveCommand(options: ServeOptions, print: Print, logger?: Logger): Promise<Relay> {
  const port = options.port ?? DEFAULT_PORT;
  let relay: Relay;
  try {
    relay = await runRelayServer({
      port,
      ...(options.host !== undefined ? { host: options.host } : {}),
      ...(options.data !== undefined ? { dataDir: options.data } : {}),
      ...(logger ? { logger } : {}),
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new SdkError('cli.port_in_use', `Port ${port} is already in use.`, {
        hint: 'pick another with --port, or --port 0 for a free one',
        cause: error,
      });
    }
    throw error;
  }
  if (options.json) {
    print(JSON.stringify({ url: relay.url, port: relay.port, dataDir: options.data ?? null }));
    return relay;
  }
  print(`happy-session relay listening on ${relay.url}`);
  print(options.data !== undefined ? `data: ${options.data}` : 'data: in memory (gone when the relay stops)');
  print(`point agents at it: HAPPY_SERVER_URL=${relay.url}`);
  print(`viewer: ${viewerLink(relay.url)}`);
  print('Ctrl-C stops it.');
  return relay;
}

/**
 * The viewer's URL for the account of this machine's `agent.key`: the secret goes in the fragment,
 * which the browser never sends to the server. Without a master secret, the URL to complete.
 */
function viewerLink(relayUrl: string): string {
  try {
    const credentials = loadCredentials();
    if (credentials.kind === 'master') return viewerUrl(relayUrl, credentials.masterSecret);
  } catch {
    // No usable agent.key: say how to open the viewer by hand.
  }
  return `${relayUrl}/#secret=<your account secret, base64url> (run \`happy-session login\` to get an agent.key)`;
}
