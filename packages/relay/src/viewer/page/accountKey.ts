import { decodeBase64 } from 'happy-session/crypto';
import { encodeBase64Url, secretboxOpen } from 'happy-session/internal';
import { SdkError } from 'happy-session';
import { TICKET_PATH } from '../fragmentFormat.js';
import type { KeySource } from './fragment.js';
import type { ViewerErrorCode } from './errorCodes.js';

/** Where this browser keeps the account key between visits (the relay's origin only). */
export const KEPT_KEY = 'happy-session-viewer.secret';

/** The part of `localStorage` the page uses, so a test can hand in its own. */
export type KeyStore = Pick<Storage, 'getItem' | 'setItem'>;

/**
 * The account's master secret for this page (docs/viewer.md, "How the page gets the key"): from
 * a `#secret=` link, from a one-time `#ticket=` link (the sealed secret is fetched once from the
 * relay and opened with the key in the fragment), or the one this browser kept. A secret that
 * came in a link is kept, so a reload or a link without it opens the viewer again.
 *
 * @returns `undefined` when there is no key anywhere.
 * @throws {SdkError} `viewer.link_used` for a one-time link that was used or is unknown,
 *   `viewer.unreachable`, `viewer.bad_answer`.
 */
export async function accountKey(
  source: KeySource,
  baseUrl: string,
  store: KeyStore,
): Promise<Uint8Array | undefined> {
  if (source.kind === 'kept') {
    const kept = store.getItem(KEPT_KEY);
    if (!kept) return undefined;
    try {
      const secret = decodeBase64(kept);
      return secret.length === 32 ? secret : undefined;
    } catch {
      return undefined;
    }
  }
  const secret = source.kind === 'secret' ? source.masterSecret : await redeem(source, baseUrl);
  store.setItem(KEPT_KEY, encodeBase64Url(secret));
  return secret;
}

async function redeem(ticket: { id: string; key: Uint8Array }, baseUrl: string): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(new URL(TICKET_PATH, baseUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id: ticket.id }),
    });
  } catch (cause) {
    throw new SdkError<ViewerErrorCode>('viewer.unreachable', `The relay at ${baseUrl} cannot be reached.`, {
      hint: 'check that `happy-session serve` is still running',
      cause,
    });
  }
  if (response.status === 404) {
    throw new SdkError<ViewerErrorCode>(
      'viewer.link_used',
      'This one-time link was already used, or the relay was restarted since.',
      {
        hint: 'open the viewer in the browser that used it, or restart `happy-session serve` for a new link',
      },
    );
  }
  const body = (await response.json().catch(() => undefined)) as { sealed?: unknown } | undefined;
  const opened =
    response.ok && typeof body?.sealed === 'string'
      ? secretboxOpen(decodeBase64(body.sealed), ticket.key)
      : undefined;
  if (!opened?.ok || opened.value.length !== 32) {
    throw new SdkError<ViewerErrorCode>(
      'viewer.bad_answer',
      "The relay's answer to the one-time link does not open with its key.",
    );
  }
  return opened.value;
}
