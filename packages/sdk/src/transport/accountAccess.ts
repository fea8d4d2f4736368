import { SdkError, isSdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { mintToken } from './authToken.js';
import { loadCredentials } from './credentials.js';
import { LOGIN_HINT } from './keyHints.js';
import type { Credentials } from './credentials.js';
import { resolveHappyHome, resolveServerUrl } from './happyHome.js';
import type { HappyEnv } from './happyHome.js';
import { HappyHttp } from './httpClient.js';

/** Where to find the server and the keys; each left out is read as the Happy CLI does (docs/wire.md §0, §1.5). */
export interface AccountAccessOptions {
  /** Server URL; default `HAPPY_SERVER_URL`, then settings.json, then Happy's server. */
  readonly server?: string;
  /** Credentials; default loaded from the Happy home directory. */
  readonly credentials?: Credentials;
  /** Happy home directory; default `HAPPY_HOME_DIR` or `~/.happy`. */
  readonly homeDir?: string;
  /** Environment to read `HAPPY_*` from; default `process.env`. */
  readonly env?: HappyEnv;
  readonly logger?: Logger;
  readonly httpTimeoutMs?: number;
  readonly fetch?: typeof fetch;
}

/** An account's server, credentials and token, with an HTTP client that sends the token. */
export interface AccountAccess {
  readonly home: string;
  readonly serverUrl: string;
  readonly credentials: Credentials;
  readonly token: string;
  readonly http: HappyHttp;
}

/**
 * Resolves the server and the credentials, and mints a token from the master secret by the
 * challenge flow when the credentials hold none (docs/wire.md §1.2). A token is only good on the
 * server that minted it: with a master secret at hand, a stored token is tried once and, when the
 * server refuses it (a Happy account's `agent.key` on the local relay, say), a new one is minted.
 *
 * @throws {SdkError} `credentials.*` without usable credentials; `transport.*` when the server
 *   cannot be reached or refuses the signature.
 */
export async function resolveAccountAccess(options: AccountAccessOptions = {}): Promise<AccountAccess> {
  const env = options.env ?? process.env;
  const home = options.homeDir ?? resolveHappyHome(env);
  const serverUrl = options.server ?? resolveServerUrl(env, home);
  const credentials = options.credentials ?? loadCredentials({ homeDir: home });
  const anonymous = new HappyHttp({
    serverUrl,
    logger: options.logger ?? silentLogger,
    ...(options.httpTimeoutMs !== undefined ? { timeoutMs: options.httpTimeoutMs } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const secret = credentials.kind === 'dataKey' ? undefined : credentials.masterSecret;
  let token = credentials.token;
  if (token !== undefined && secret !== undefined && !(await accepts(anonymous.withToken(token)))) {
    token = undefined;
  }
  if (token === undefined && secret !== undefined) token = await mintToken(anonymous, secret);
  if (!token) {
    throw new SdkError(
      'credentials.malformed',
      'The credentials hold no token and no master secret to mint one.',
      { hint: LOGIN_HINT },
    );
  }
  return { home, serverUrl: anonymous.serverUrl, credentials, token, http: anonymous.withToken(token) };
}

/** False when the server refuses the client's token (401); any other failure is thrown as it is. */
async function accepts(http: HappyHttp): Promise<boolean> {
  try {
    // The cheapest authenticated read a Happy server has (docs/wire.md §4.1, "Other routes").
    await http.request('GET', '/v2/sessions/active?limit=1');
    return true;
  } catch (error) {
    if (isSdkError(error, 'transport.unauthorized')) return false;
    throw error;
  }
}
