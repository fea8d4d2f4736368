import { decodeBase64 } from 'happy-session/crypto';
import { SECRET_PARAM, SESSION_PARAM, TICKET_PARAM } from '../fragmentFormat.js';

/** Where the page gets the account key from, as its link says (docs/viewer.md). */
export type KeySource =
  /** `#secret=`: the master secret itself (`viewerUrl`, `serve --print-secret`). */
  | { readonly kind: 'secret'; readonly masterSecret: Uint8Array }
  /** `#ticket=<id>.<key>`: a one-time link; the relay holds the secret sealed under `key`. */
  | { readonly kind: 'ticket'; readonly id: string; readonly key: Uint8Array }
  /** Neither: the key this browser kept from an earlier visit, if any. */
  | { readonly kind: 'kept' };

/** What the viewer reads from its URL fragment (never sent to the server). */
export interface ViewerFragment {
  readonly source: KeySource;
  /** The session to open first, if the link names one. */
  readonly sessionId: string | undefined;
}

/** Why a fragment could not be read. */
export type FragmentProblem = 'bad-secret' | 'bad-ticket';

function key32(text: string): Uint8Array | undefined {
  try {
    const bytes = decodeBase64(text);
    return bytes.length === 32 ? bytes : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Reads `#secret=<base64url>` or `#ticket=<id>.<base64url key>`, each with an optional
 * `&session=<id>`. The fragment never leaves the browser; the page derives every key from the
 * secret locally.
 */
export function parseViewerFragment(
  hash: string,
): { ok: true; value: ViewerFragment } | { ok: false; problem: FragmentProblem } {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  const sessionId = params.get(SESSION_PARAM) || undefined;
  const secret = params.get(SECRET_PARAM);
  if (secret) {
    const masterSecret = key32(secret);
    if (!masterSecret) return { ok: false, problem: 'bad-secret' };
    return { ok: true, value: { source: { kind: 'secret', masterSecret }, sessionId } };
  }
  const ticket = params.get(TICKET_PARAM);
  if (ticket) {
    const [id, keyText, ...rest] = ticket.split('.');
    const key = keyText === undefined ? undefined : key32(keyText);
    if (!id || !key || rest.length > 0) return { ok: false, problem: 'bad-ticket' };
    return { ok: true, value: { source: { kind: 'ticket', id, key }, sessionId } };
  }
  return { ok: true, value: { source: { kind: 'kept' }, sessionId } };
}

/** The fragment with the key removed: what stays in the address bar and the history. */
export function fragmentWithoutKey(hash: string): string {
  const params = new URLSearchParams(hash.startsWith('#') ? hash.slice(1) : hash);
  params.delete(SECRET_PARAM);
  params.delete(TICKET_PARAM);
  const rest = params.toString();
  return rest ? `#${rest}` : '';
}
