import { deriveAccountKeys } from '../crypto/accountKeys.js';
import { encodeBase64 } from '../crypto/base64.js';
import { generateDataKey, unwrapDataKey, wrapDataKey } from '../crypto/dataKey.js';
import type { RecordKey } from '../crypto/records.js';
import { SdkError } from '../errors.js';
import type { Credentials } from './credentials.js';
import { GET_A_KEY } from './keyHints.js';

/** The key of a new session and the `dataEncryptionKey` to send with it. */
export interface NewSessionKey {
  readonly key: RecordKey;
  /** Base64 of the wrapped data key, or null for a legacy session. */
  readonly dataEncryptionKey: string | null;
}

/**
 * A key for a new session (docs/wire.md §3.1, §3.3): a fresh AES-256-GCM data key wrapped to the
 * account's content public key when it is known (agent.key, dataKey access.key); with legacy
 * credentials a legacy session under the master secret and `dataEncryptionKey: null`, as the CLI
 * makes them.
 */
export function newSessionKey(credentials: Credentials): NewSessionKey {
  if (credentials.kind === 'legacy') {
    return { key: { variant: 'legacy', key: credentials.masterSecret }, dataEncryptionKey: null };
  }
  const contentPublicKey =
    credentials.kind === 'master'
      ? deriveAccountKeys(credentials.masterSecret).content.publicKey
      : credentials.contentPublicKey;
  const dataKey = generateDataKey();
  return {
    key: { variant: 'dataKey', key: dataKey },
    dataEncryptionKey: encodeBase64(wrapDataKey(dataKey, contentPublicKey)),
  };
}

/**
 * The key of an existing session: its unwrapped `dataEncryptionKey`, or the master secret for a
 * legacy session. Needs the master secret either way.
 *
 * @throws {SdkError} `credentials.cannot_open` with dataKey credentials (they hold no secret key);
 *   `crypto.*` when the wrapped key does not open with this account's key.
 */
export function existingSessionKey(credentials: Credentials, dataEncryptionKey: string | null): RecordKey {
  if (credentials.kind === 'dataKey') {
    throw new SdkError(
      'credentials.cannot_open',
      'These credentials (a V2-paired access.key) can create sessions but not open existing ones.',
      { hint: `use an agent.key, which holds the master secret: ${GET_A_KEY}` },
    );
  }
  if (dataEncryptionKey === null) return { variant: 'legacy', key: credentials.masterSecret };
  const unwrapped = unwrapDataKey(
    dataEncryptionKey,
    deriveAccountKeys(credentials.masterSecret).content.secretKey,
  );
  if (!unwrapped.ok) {
    throw new SdkError(unwrapped.error.code, `The session key does not open: ${unwrapped.error.message}`, {
      hint: 'the session was made by another account, or the credentials are of another account',
    });
  }
  return { variant: 'dataKey', key: unwrapped.value };
}
