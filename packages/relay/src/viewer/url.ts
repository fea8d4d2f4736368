import { assertLength, encodeBase64Url, KEY_LENGTH } from 'happy-session/crypto';
import { viewerFragment } from './fragmentFormat.js';

/**
 * The link that opens the relay's web viewer on an account (and, optionally, one session):
 * `<relayUrl>/#secret=<base64url master secret>[&session=<id>]`. The secret is in the fragment, so
 * the browser keeps it: the relay only ever serves the page and ciphertext. Anyone holding this
 * link can read and answer every session of the account; print it only to its owner.
 *
 * @throws {SdkError} `crypto.bad_key` unless `masterSecret` is 32 bytes.
 * @see docs/viewer.md
 */
export function viewerUrl(relayUrl: string, masterSecret: Uint8Array, sessionId?: string): string {
  assertLength(masterSecret, KEY_LENGTH, 'master secret');
  const base = relayUrl.replace(/\/+$/, '');
  return `${base}/${viewerFragment(encodeBase64Url(masterSecret), sessionId)}`;
}
