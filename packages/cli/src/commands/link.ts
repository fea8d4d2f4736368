import { SdkError } from 'happy-session';
import { loadCredentials } from 'happy-session/node';
import { HappyHttp, mintToken } from 'happy-session/internal';
import { newViewerLink } from 'happy-session-relay';
import { EXIT } from '../exitCodes.js';
import type { ExitCode } from '../exitCodes.js';
import type { Print } from '../output.js';
import type { CommandContext } from './context.js';
import { DEFAULT_PORT } from './serve.js';
import type { CliErrorCode } from '../errorCodes.js';

/** Options of `happy-session link`. */
export interface LinkOptions {
  /** The relay; default `HAPPY_SERVER_URL`, else the one `serve` starts by default. */
  readonly server?: string;
  /** The session the page opens first. */
  readonly session?: string;
  /** Print `{link}` as one JSON line. */
  readonly json?: boolean;
}

/**
 * `happy-session link`: a new one-time viewer link for a relay that is running, so that a used
 * link never means restarting the relay. The master secret of `agent.key` is sealed here and only
 * the sealed copy goes to the relay (`newViewerLink`, docs/viewer.md). Unlike the commands that
 * read `settings.json`, it never falls back to Happy's server: only the embedded relay has a viewer.
 *
 * @throws {SdkError} `cli.no_master_secret` when the keys hold no master secret; `relay.no_viewer`
 *   when the server is not a happy-session relay; `transport.*` when it cannot be reached.
 */
export async function linkCommand(
  options: LinkOptions,
  print: Print,
  context: CommandContext = {},
): Promise<ExitCode> {
  const env = context.env ?? process.env;
  const relayUrl = (options.server ?? env.HAPPY_SERVER_URL ?? `http://127.0.0.1:${DEFAULT_PORT}`).replace(
    /\/+$/,
    '',
  );
  const credentials = loadCredentials({
    env,
    ...(context.homeDir !== undefined ? { homeDir: context.homeDir } : {}),
  });
  if (credentials.kind === 'dataKey') {
    throw new SdkError<CliErrorCode>(
      'cli.no_master_secret',
      'These keys hold no master secret: a viewer link needs one.',
      {
        hint: 'use an agent.key (`happy-session keygen` for the local relay, `happy-session login` for your Happy account)',
      },
    );
  }
  const token = await mintToken(new HappyHttp({ serverUrl: relayUrl }), credentials.masterSecret);
  const link = await newViewerLink({
    relayUrl,
    token,
    masterSecret: credentials.masterSecret,
    ...(options.session !== undefined ? { sessionId: options.session } : {}),
    ...(context.signal ? { signal: context.signal } : {}),
  });
  if (options.json) print(JSON.stringify({ link }));
  else print(`viewer (one-time link; the page keeps the key in your browser): ${link}`);
  return EXIT.ok;
}
