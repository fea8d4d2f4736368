import { decodeBase64 } from 'happy-session/crypto';
import { SECRET_PARAM, SESSION_PARAM } from '../fragmentFormat.js';

/** What the viewer reads from its URL fragment (never sent to the server). */
export interface ViewerFragment {
  /** The account master secret (32 bytes). */
  readonly masterSecret: Uint8Array;
  /** The session to open first, if the link names one. */
  readonly sessionId: string | undefined;
}

/** Why a fragment could not be read. */
export type FragmentProblem = 'missing-secret' | 'bad-secret';

/**
 * Reads `#secret=<base64url master secret>[&session=<id>]`. The secret lives in the fragment so the
 * browser never sends it to the relay; the page derives every key from it locally.
 */
export function parseViewerFragment(
  hash: string,
): { ok: true; value: ViewerFragment } | { ok: false; problem: FragmentProblem } {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const secret = params.get(SECRET_PARAM);
  if (!secret) return { ok: false, problem: 'missing-secret' };
  let masterSecret: Uint8Array;
  try {
    masterSecret = decodeBase64(secret);
  } catch {
    return { ok: false, problem: 'bad-secret' };
  }
  if (masterSecret.length !== 32) return { ok: false, problem: 'bad-secret' };
  const sessionId = params.get(SESSION_PARAM) || undefined;
  return { ok: true, value: { masterSecret, sessionId } };
}
