import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from '../../packages/sdk/src/crypto/random.js';
import { mintToken } from '../../packages/sdk/src/transport/authToken.js';
import { loadCredentials, writeAgentKey } from '../../packages/sdk/src/transport/credentials.js';
import type { Credentials } from '../../packages/sdk/src/transport/credentials.js';
import { resolveHappyHome } from '../../packages/sdk/src/transport/happyHome.js';
import { HappyHttp } from '../../packages/sdk/src/transport/httpClient.js';
import type { RelayLimits } from '../../packages/relay/src/index.js';
import { RelayChild } from './relayChild.js';

/** The server a benchmark talks to, with credentials for one account on it. */
export interface BenchServer {
  readonly url: string;
  readonly credentials: Credentials;
  /** Bearer token of the account (minted from the master secret when none was stored). */
  readonly token: string;
  /** `embedded relay (child process)` or the external URL. */
  readonly label: string;
  /** Environment that points a child process at the same server and account. */
  readonly childEnv: Readonly<Record<string, string>>;
  /** The relay child's process id, when the benchmark started one. */
  readonly relayPid?: number;
  /** Stops the relay (if the benchmark started one) and removes temporary files. */
  close(): Promise<void>;
}

/** How a benchmark wants its embedded relay. */
export interface BenchServerOptions {
  /**
   * The relay's per-account limits for this benchmark (`limitsForRecords()` of what it writes);
   * the relay's defaults for each one not given. An external server keeps its own.
   */
  readonly limits?: RelayLimits;
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * The server of a benchmark. With `HAPPY_SERVER_URL` set, that server, with the credentials of
 * `HAPPY_HOME_DIR` (default `~/.happy`: `agent.key` or `access.key`), as the SDK reads them.
 * Otherwise a fresh embedded relay in a child process with a fresh account, whose `agent.key` is
 * written to a temporary home so that child processes find it the same way.
 */
export async function benchServer(options: BenchServerOptions = {}): Promise<BenchServer> {
  const env = options.env ?? process.env;
  const external = env.HAPPY_SERVER_URL?.replace(/\/+$/, '');
  if (external) {
    const home = resolveHappyHome(env);
    const credentials = loadCredentials({ homeDir: home });
    const token = await tokenFor(external, credentials);
    return {
      url: external,
      credentials,
      token,
      label: external,
      childEnv: { HAPPY_SERVER_URL: external, HAPPY_HOME_DIR: home },
      close: async () => undefined,
    };
  }
  const scratch = mkdtempSync(join(tmpdir(), 'happy-bench-'));
  try {
    const relay = await RelayChild.start(join(scratch, 'relay'), options.limits);
    const masterSecret = randomBytes(32);
    const token = await mintToken(new HappyHttp({ serverUrl: relay.url }), masterSecret);
    const home = join(scratch, 'home');
    writeAgentKey(home, { secret: masterSecret, token });
    return {
      url: relay.url,
      credentials: { kind: 'master', masterSecret, token },
      token,
      label: 'embedded relay (child process)',
      childEnv: { HAPPY_SERVER_URL: relay.url, HAPPY_HOME_DIR: home },
      ...(relay.pid !== undefined ? { relayPid: relay.pid } : {}),
      close: async () => {
        await relay.stop();
        rmSync(scratch, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(scratch, { recursive: true, force: true });
    throw error;
  }
}

async function tokenFor(url: string, credentials: Credentials): Promise<string> {
  if (credentials.token) return credentials.token;
  if (credentials.kind === 'dataKey') throw new Error('dataKey credentials always carry a token');
  return mintToken(new HappyHttp({ serverUrl: url }), credentials.masterSecret);
}
