import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { SdkError, isSdkError } from 'happy-session';
import { randomBytes } from 'happy-session/internal';
import { resolveHappyHome, resolveServerUrl, writeAgentKey } from 'happy-session/node';
import { HappyHttp, mintToken } from 'happy-session/internal';
import { EXIT } from '../exitCodes.js';
import type { ExitCode } from '../exitCodes.js';
import type { Print } from '../output.js';
import type { CommandContext } from './context.js';
import type { CliErrorCode } from '../errorCodes.js';

/** Options of `happy-session keygen`. */
export interface KeygenOptions {
  /** Mint the token on this server now; default `HAPPY_SERVER_URL` when set, else on first use. */
  readonly server?: string;
  /** Print `{file, server, token}` as one JSON line. */
  readonly json?: boolean;
}

/**
 * `happy-session keygen`: makes a new account key for the local relay, the way `login` makes one
 * for a Happy server. Writes `agent.key` in the Happy home (happy-agent's `{token, secret}` format,
 * mode 0600 in a 0700 directory, docs/wire.md §1.5) and never replaces an existing one. A relay
 * creates the account the first time the key signs in (`POST /v1/auth`, docs/wire.md §1.2): when
 * a server is named (`--server` or `HAPPY_SERVER_URL`), keygen signs in there at once and stores
 * the token; otherwise the file holds the secret and a token is minted on first use. Happy's
 * public server is never contacted unless named.
 *
 * @throws {SdkError} `cli.key_exists` when agent.key exists; `transport.*` when the named server
 *   refuses the new key (a server that cannot be reached only leaves the token for later).
 */
export async function keygenCommand(
  options: KeygenOptions,
  print: Print,
  context: CommandContext = {},
): Promise<ExitCode> {
  const env = context.env ?? process.env;
  const home = context.homeDir ?? resolveHappyHome(env);
  const file = join(home, 'agent.key');
  if (existsSync(file)) throw keyExists(file);
  const secret = randomBytes(32);
  const named = options.server ?? (env.HAPPY_SERVER_URL ? resolveServerUrl(env, home) : undefined);
  let token: string | undefined;
  let unreachable: string | undefined;
  if (named !== undefined) {
    try {
      token = await mintToken(new HappyHttp({ serverUrl: named }), secret);
    } catch (error) {
      if (!isSdkError(error, 'transport.network') && !isSdkError(error, 'transport.timeout')) throw error;
      unreachable = error.message;
    }
  }
  try {
    writeAgentKey(home, { secret, ...(token !== undefined ? { token } : {}) }, { exclusive: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') throw keyExists(file);
    throw error;
  }
  if (options.json) {
    print(JSON.stringify({ file, server: named ?? null, token: token !== undefined }));
    return EXIT.ok;
  }
  print(`Wrote ${file} (mode 0600): a new account key.`);
  if (token !== undefined) print(`Signed in on ${named}: the account exists there now.`);
  else if (unreachable !== undefined)
    print(
      `${named} could not be reached (${unreachable}); the account is made the first time the key is used.`,
    );
  else
    print(
      'The relay makes the account the first time the key is used (start it with `happy-session serve`).',
    );
  return EXIT.ok;
}

function keyExists(file: string): SdkError<CliErrorCode> {
  return new SdkError<CliErrorCode>(
    'cli.key_exists',
    `${file} exists already; keygen never replaces a key.`,
    {
      hint: 'keep it: a Happy account key works on the local relay too; for another account, set HAPPY_HOME_DIR to an empty directory',
      details: { file },
    },
  );
}
