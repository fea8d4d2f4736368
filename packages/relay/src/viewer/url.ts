import { assertLength, encodeBase64Url, KEY_LENGTH } from 'happy-session/internal';
import { SECRET_PARAM, viewerFragment } from './fragmentFormat.js';

/**
 * The link that opens the relay's web viewer on an account (and, optionally, one session), with
 * the master secret itself in the fragment: `<relayUrl>/#secret=<base64url>[&session=<id>]`. The
 * browser never sends the fragment, but the link is the account: anyone who sees it, in a log or
 * a terminal's scrollback, can read and answer every session. Prefer a one-time link,
 * `relay.viewerLink(secret)`; print this one only to its owner (`serve --print-secret`).
 *
 * @throws {SdkError} `crypto.bad_key` unless `masterSecret` is 32 bytes.
 * @see docs/viewer.md
 */
export function viewerUrl(relayUrl: string, masterSecret: Uint8Array, sessionId?: string): string {
  assertLength(masterSecret, KEY_LENGTH, 'master secret');
  const base = relayUrl.replace(/\/+$/, '');
  return `${base}/${viewerFragment(SECRET_PARAM, encodeBase64Url(masterSecret), sessionId)}`;
}
