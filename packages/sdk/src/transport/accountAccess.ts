import { SdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { AccountToken } from './accountToken.js';
import { mintToken } from './authToken.js';
import { loadCredentials, saveAgentKey } from './credentials.js';
import { LOGIN_HINT } from './keyHints.js';
import type { Credentials } from './credentials.js';
import { resolveHappyHome, resolveServerUrl } from './happyHome.js';
import type { HappyEnv } from './happyHome.js';
import { HappyHttp } from './httpClient.js';
import { installNodePlatform } from './nodePlatform.js';
import { ServerTokens } from './serverTokens.js';

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
  /** The bearer token; renewed from the master secret when the server refuses it (docs/transport.md, "Tokens"). */
  readonly token: AccountToken;
  readonly http: HappyHttp;
}

/**
 * Resolves the server and the credentials, and mints a token from the master secret by the
 * challenge flow when the credentials hold none (docs/wire.md §1.2). With a master secret, a token
 * the server refuses later (401) is replaced by a new one minted the same way, once per refusal.
 * A token minted for a secret-only `agent.key` read from the Happy home is saved to it
 * (`{token, secret}`, mode 0600, atomically), so the next run does not authenticate again. A key
 * file that holds a token keeps it (that token is the issuing server's, and Happy's own CLI uses
 * it): a token minted after a refusal is saved per server in `<home>/happy-session/tokens.json`
 * and used first for that server (docs/transport.md, "Tokens").
 * Installs Node's primitives on the way (`installNodePlatform`: the synchronous `node:crypto`
 * record cipher, the `node:http` exchange, `Buffer` base64).
 *
 * @throws {SdkError} `credentials.*` without usable credentials; `transport.*` when the server
 *   cannot be reached or refuses the signature.
 */
export async function resolveAccountAccess(options: AccountAccessOptions = {}): Promise<AccountAccess> {
  installNodePlatform();
  const env = options.env ?? process.env;
  const logger = options.logger ?? silentLogger;
  const home = options.homeDir ?? resolveHappyHome(env);
  const serverUrl = options.server ?? resolveServerUrl(env, home);
  const credentials = options.credentials ?? loadCredentials({ homeDir: home });
  const anonymous = new HappyHttp({
    serverUrl,
    logger,
    ...(options.httpTimeoutMs !== undefined ? { timeoutMs: options.httpTimeoutMs } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const secret = credentials.kind === 'dataKey' ? undefined : credentials.masterSecret;
  const keyFile =
    options.credentials === undefined && credentials.kind === 'master' ? credentials.source : undefined;
  // A key file with a token of its own keeps it: tokens minted for it go to the per-server file.
  const serverTokens = keyFile && credentials.token !== undefined ? new ServerTokens(home) : undefined;
  const renew =
    secret &&
    (async (): Promise<string> => {
      const minted = await mintToken(anonymous, secret);
      logger.info('got a token from the master secret', { server: anonymous.serverUrl });
      if (serverTokens) saveServerToken(serverTokens, anonymous.serverUrl, minted, logger);
      else if (keyFile) saveToken(keyFile, secret, minted, logger);
      return minted;
    });
  const initial =
    serverTokens?.get(anonymous.serverUrl) ?? credentials.token ?? (renew ? await renew() : undefined);
  if (!initial) {
    throw new SdkError(
      'credentials.malformed',
      'The credentials hold no token and no master secret to mint one.',
      { hint: LOGIN_HINT },
    );
  }
  const token = new AccountToken(initial, renew || undefined);
  return { home, serverUrl: anonymous.serverUrl, credentials, token, http: anonymous.withToken(token) };
}

/** Saves a token minted for a key file that holds another server's token; failing costs a new token next run. */
function saveServerToken(tokens: ServerTokens, serverUrl: string, token: string, logger: Logger): void {
  try {
    tokens.set(serverUrl, token);
    logger.info('saved the token for this server', { server: serverUrl });
  } catch (error) {
    logger.warn('could not save the token for this server; the next run gets a new one', {
      server: serverUrl,
      error: String(error),
    });
  }
}

/** Saves a minted token beside its secret; a key file that cannot be written costs a new token next run, no more. */
function saveToken(file: string, secret: Uint8Array, token: string, logger: Logger): void {
  try {
    saveAgentKey(file, { secret, token });
    logger.info('saved the token to the key file', { file });
  } catch (error) {
    logger.warn('could not save the token to the key file; the next run gets a new one', {
      file,
      error: String(error),
    });
  }
}
