import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { decodeBase64, encodeBase64 } from '../crypto/base64.js';
import { SdkError } from '../errors.js';
import type { CredentialsErrorCode } from '../errorCodes.js';
import { resolveHappyHome } from './happyHome.js';
import type { HappyEnv } from './happyHome.js';
import { LOGIN_HINT } from './keyHints.js';

/**
 * What the SDK holds to reach an account (docs/wire.md §1.5):
 * - `master`: the account master secret (`agent.key`); can mint tokens, create dataKey sessions
 *   and open any session of the account.
 * - `legacy`: master secret plus token from a V1-paired `access.key`; sessions are legacy
 *   (secretbox under the master secret, `dataEncryptionKey: null`), as the CLI makes them.
 * - `dataKey`: the content public key from a V2-paired `access.key`; can create sessions, but
 *   cannot open sessions made by others.
 */
export type Credentials =
  | {
      readonly kind: 'master';
      readonly masterSecret: Uint8Array;
      readonly token?: string;
      readonly source?: string;
    }
  | {
      readonly kind: 'legacy';
      readonly masterSecret: Uint8Array;
      readonly token: string;
      readonly source?: string;
    }
  | {
      readonly kind: 'dataKey';
      readonly contentPublicKey: Uint8Array;
      readonly machineKey: Uint8Array;
      readonly token: string;
      readonly source?: string;
    };

/** Codes {@link loadCredentials} fails with. */
export type LoadCredentialsErrorCode = Exclude<CredentialsErrorCode, 'credentials.cannot_open'>;

/**
 * Loads credentials from the Happy home directory (`HAPPY_HOME_DIR`, default `~/.happy`):
 * `agent.key` first (full access), then `access.key` (legacy or dataKey variant). Key files must
 * not be readable by group or others.
 *
 * @throws {SdkError} `credentials.missing`, `credentials.malformed` or
 *   `credentials.insecure_permissions`; the hint says what to do.
 * @see docs/wire.md §1.5
 */
export function loadCredentials(options: { homeDir?: string; env?: HappyEnv } = {}): Credentials {
  const home = options.homeDir ?? resolveHappyHome(options.env);
  const agentKey = join(home, 'agent.key');
  const accessKey = join(home, 'access.key');
  const agentText = readKeyFile(agentKey);
  if (agentText !== undefined) return parseAgentKey(agentText, agentKey);
  const accessText = readKeyFile(accessKey);
  if (accessText !== undefined) return parseAccessKey(accessText, accessKey);
  throw new SdkError('credentials.missing', `No Happy credentials in ${home} (agent.key or access.key).`, {
    hint: LOGIN_HINT,
    details: { homeDir: home },
  });
}

function readKeyFile(file: string): string | undefined {
  let mode: number;
  try {
    mode = statSync(file).mode;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new SdkError('credentials.malformed', `Cannot read ${file}: ${String(error)}.`, {
      hint: 'check that the file is readable by this user',
      cause: error,
    });
  }
  // A secret readable by other users is a leaked secret; refuse it as ssh does (Windows has no modes).
  if (process.platform !== 'win32' && (mode & 0o077) !== 0) {
    throw new SdkError(
      'credentials.insecure_permissions',
      `${file} is accessible by group or others (mode ${(mode & 0o777).toString(8)}).`,
      { hint: `chmod 600 ${file}`, details: { file, mode: mode & 0o777 } },
    );
  }
  return readFileSync(file, 'utf8');
}

function parseJson(text: string, file: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (cause) {
    throw malformed(file, 'it is not JSON', cause);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw malformed(file, 'it is not a JSON object');
  }
  return value as Record<string, unknown>;
}

function key32(value: unknown, field: string, file: string): Uint8Array {
  if (typeof value !== 'string') throw malformed(file, `"${field}" is missing`);
  let bytes: Uint8Array;
  try {
    bytes = decodeBase64(value);
  } catch (cause) {
    throw malformed(file, `"${field}" is not base64`, cause);
  }
  if (bytes.length !== 32) throw malformed(file, `"${field}" is ${bytes.length} bytes, not 32`);
  return bytes;
}

function token(value: unknown, file: string, required: boolean): string | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'string' || value === '') throw malformed(file, '"token" is missing');
  return value;
}

/** Parses `agent.key`: `{token?, secret}` (docs/wire.md §1.5). */
export function parseAgentKey(text: string, file = 'agent.key'): Credentials {
  const json = parseJson(text, file);
  if (json.secret === undefined || json.secret === null) {
    throw new SdkError(
      'credentials.malformed',
      `${file} holds no "secret": the SDK needs the account's master secret to open sessions and to get a new token when one is refused.`,
      {
        hint: `run \`happy-session login\` to pair again (it writes agent.key with the secret), or delete ${file} to use access.key`,
        details: { file },
      },
    );
  }
  const masterSecret = key32(json.secret, 'secret', file);
  const t = token(json.token, file, false);
  return { kind: 'master', masterSecret, ...(t !== undefined ? { token: t } : {}), source: file };
}

/**
 * Parses `access.key`: legacy `{secret, token}` when `secret` is present, otherwise dataKey
 * `{encryption: {publicKey, machineKey}, token}` (docs/wire.md §1.5).
 */
export function parseAccessKey(text: string, file = 'access.key'): Credentials {
  const json = parseJson(text, file);
  const t = token(json.token, file, true) as string;
  if (json.secret !== undefined && json.secret !== null) {
    return { kind: 'legacy', masterSecret: key32(json.secret, 'secret', file), token: t, source: file };
  }
  const encryption = json.encryption as Record<string, unknown> | undefined;
  if (typeof encryption !== 'object' || encryption === null) {
    throw malformed(file, 'it has neither "secret" nor "encryption"');
  }
  return {
    kind: 'dataKey',
    contentPublicKey: key32(encryption.publicKey, 'encryption.publicKey', file),
    machineKey: key32(encryption.machineKey, 'encryption.machineKey', file),
    token: t,
    source: file,
  };
}

function malformed(file: string, why: string, cause?: unknown): SdkError {
  return new SdkError('credentials.malformed', `${file} is not a valid Happy key file: ${why}.`, {
    hint: `delete it and ${LOGIN_HINT}`,
    cause,
    details: { file },
  });
}

/**
 * Writes `agent.key` as happy-agent does: compact JSON `{token, secret}`, file mode 0600 in a
 * directory of mode 0700 (docs/wire.md §1.5). Without a token (a new key no server has seen yet)
 * it writes `{secret}`, and a token is minted on first use. With `exclusive`, an existing file is
 * never replaced: the write fails with `EEXIST`. Returns the file path.
 */
export function writeAgentKey(
  dir: string,
  credentials: { secret: Uint8Array; token?: string },
  options: { exclusive?: boolean } = {},
): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const file = join(dir, 'agent.key');
  if (credentials.token !== undefined && !options.exclusive) {
    saveAgentKey(file, { secret: credentials.secret, token: credentials.token });
    return file;
  }
  const secret = encodeBase64(credentials.secret);
  const body = JSON.stringify(
    credentials.token !== undefined ? { token: credentials.token, secret } : { secret },
  );
  writeFileSync(file, body, { mode: 0o600, ...(options.exclusive ? { flag: 'wx' } : {}) });
  // writeFile keeps the mode of an existing file; make it 0600 either way.
  chmodSync(file, 0o600);
  return file;
}

/**
 * Replaces the key file `file` with `{token, secret}` atomically: the JSON goes to a new file of
 * mode 0600 beside it, which is then renamed over it, so a reader never sees half a file and a
 * crash leaves the old one (docs/transport.md, "Tokens"). The directory is left as it is.
 */
export function saveAgentKey(file: string, credentials: { secret: Uint8Array; token: string }): void {
  const body = JSON.stringify({ token: credentials.token, secret: encodeBase64(credentials.secret) });
  const temporary = join(dirname(file), `.${basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    writeFileSync(temporary, body, { mode: 0o600, flag: 'wx' });
    // The process umask may have narrowed the mode further; make it exactly 0600.
    chmodSync(temporary, 0o600);
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
}
