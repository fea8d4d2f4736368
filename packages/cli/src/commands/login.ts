import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import qrcode from 'qrcode-terminal';
import { z } from 'zod';
import { encodeBase64 } from 'happy-session/crypto';
import { accountQrUrl, openPairingResponse, pairingKeyPair } from 'happy-session/crypto';
import { SdkError } from 'happy-session';
import { mintToken } from 'happy-session/internal';
import { writeAgentKey } from 'happy-session/node';
import { DEFAULT_SERVER_URL, resolveHappyHome, resolveServerUrl } from 'happy-session/node';
import { HappyHttp } from 'happy-session/internal';
import { isRetryableTransportError } from 'happy-session/ports';
import { expectShape } from 'happy-session/internal';
import { EXIT } from '../exitCodes.js';
import type { ExitCode } from '../exitCodes.js';
import type { Print } from '../output.js';
import type { CommandContext } from './context.js';
import type { CliErrorCode } from '../errorCodes.js';

/** Options of `happy-session login`. */
export interface LoginOptions {
  /** Server URL; default `HAPPY_SERVER_URL`, settings.json, then Happy's server. */
  readonly server?: string;
  /** Replace an existing agent.key. */
  readonly force?: boolean;
}

/** Timing of the approval wait; happy-agent's values by default (docs/wire.md §1.4). */
export interface LoginTiming {
  /** Default 1 000 ms. */
  readonly pollIntervalMs?: number;
  /** Default 120 000 ms. */
  readonly timeoutMs?: number;
}

const RequestAnswerSchema = z.union([
  z.object({ state: z.literal('requested') }),
  z.object({ state: z.literal('authorized'), token: z.string(), response: z.string() }),
]);

/**
 * `happy-session login`: links this machine to a Happy account by QR code (account linking,
 * docs/wire.md §1.4). Makes a one-time X25519 key pair, registers the request, prints the QR code of
 * `happy:///account?<key>` for the app (Settings → Account → Link New Device), polls until the app
 * answers, opens the answer (the master secret), mints a token with it and writes `agent.key`
 * (mode 0600 in a 0700 directory). An existing agent.key is kept unless `force`.
 *
 * @returns 0 once agent.key is written; 130 when `context.signal` aborts (Ctrl-C).
 * @throws {SdkError} `cli.already_logged_in`, `cli.login_timeout`, `cli.login_wrong_answer`,
 *   `crypto.*` for an answer that does not open, `transport.*` when the server refuses.
 */
export async function loginCommand(
  options: LoginOptions,
  print: Print,
  context: CommandContext = {},
  timing: LoginTiming = {},
): Promise<ExitCode> {
  const env = context.env ?? process.env;
  const home = context.homeDir ?? resolveHappyHome(env);
  const serverUrl = options.server ?? resolveServerUrl(env, home);
  const keyFile = join(home, 'agent.key');
  if (existsSync(keyFile) && !options.force) {
    throw new SdkError<CliErrorCode>('cli.already_logged_in', `${keyFile} exists already.`, {
      hint: 'pass --force to replace it, or set HAPPY_HOME_DIR to another directory',
    });
  }
  const http = new HappyHttp({ serverUrl });
  const pair = pairingKeyPair();
  const body = { publicKey: encodeBase64(pair.publicKey) };
  const poll = async () =>
    expectShape(
      RequestAnswerSchema,
      await http.request<unknown>('POST', '/v1/auth/account/request', body),
      'POST /v1/auth/account/request',
    );

  let answer = await poll();
  const link = accountQrUrl(pair.publicKey);
  print('Link this machine to your Happy account:');
  print('open the Happy app → Settings → Account → Link New Device, and scan this code.');
  print('');
  qrcode.generate(link, { small: true }, (code) => print(code));
  print(link);
  print('');
  print(`Waiting for the app (server ${http.serverUrl}; Ctrl-C cancels)…`);

  const pollIntervalMs = timing.pollIntervalMs ?? 1000;
  const timeoutMs = timing.timeoutMs ?? 120_000;
  const deadline = Date.now() + timeoutMs;
  while (answer.state !== 'authorized') {
    if (Date.now() >= deadline) {
      throw new SdkError<CliErrorCode>(
        'cli.login_timeout',
        `Nobody approved the link within ${Math.round(timeoutMs / 1000)} s.`,
        { hint: 'run `happy-session login` again and scan the new code in the Happy app' },
      );
    }
    if (!(await sleep(pollIntervalMs, context.signal))) {
      print('Login cancelled.');
      return EXIT.interrupted;
    }
    try {
      answer = await poll();
    } catch (error) {
      // A server restarting or a network blip is no reason to give up a link the user is scanning.
      if (!isRetryableTransportError(error)) throw error;
    }
  }

  const opened = openPairingResponse(answer.response, pair.secretKey);
  if (!opened.ok) {
    throw new SdkError(opened.error.code, `The app's answer does not open: ${opened.error.message}`, {
      hint: 'run `happy-session login` again; if it keeps failing, update the Happy app',
    });
  }
  if (opened.value.kind !== 'legacy') {
    throw new SdkError<CliErrorCode>(
      'cli.login_wrong_answer',
      'The app answered with a public key, not the account secret an account link delivers.',
      { hint: 'scan the code with Settings → Account → Link New Device, not the terminal pairing screen' },
    );
  }
  const secret = opened.value.secret;
  // Minted rather than taken from the answer: a token from the secret is surely the token of the
  // account this secret opens, whatever the answer's token is.
  const token = await mintToken(http, secret);
  const file = writeAgentKey(home, { secret, token });
  print(`Logged in. Wrote ${file} (mode 0600).`);
  if (http.serverUrl !== DEFAULT_SERVER_URL && options.server !== undefined && !env.HAPPY_SERVER_URL) {
    print(
      `This account is on ${http.serverUrl}: set HAPPY_SERVER_URL=${http.serverUrl} for the other commands.`,
    );
  }
  return EXIT.ok;
}

/** Waits `ms` on Node's own timer; false when `signal` aborted first. */
async function sleep(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  try {
    return await delay(ms, true, { signal });
  } catch (error) {
    if (error instanceof Error && error.name === 'AbortError') return false;
    throw error;
  }
}
