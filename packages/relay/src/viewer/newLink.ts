import { SdkError } from 'happy-session';
import { NEW_TICKET_PATH } from './fragmentFormat.js';
import { sealTicket, ticketLink } from './tickets.js';
import type { RelayErrorCode } from '../errorCodes.js';

/** What {@link newViewerLink} needs: a running relay, an account's token and its master secret. */
export interface NewViewerLinkOptions {
  readonly relayUrl: string;
  /** A bearer token of the account (`mintToken`, or the one in agent.key). */
  readonly token: string;
  readonly masterSecret: Uint8Array;
  /** The session the page opens first. */
  readonly sessionId?: string;
  readonly signal?: AbortSignal;
}

/**
 * A new one-time viewer link from a relay that is running (`happy-session link`): the secret is
 * sealed here, the relay keeps only the sealed copy (`POST /viewer/tickets`), and the key that
 * opens it goes into the link's fragment only (docs/viewer.md, "How the page gets the key").
 *
 * @throws {SdkError} `relay.no_viewer` when the server has no viewer (it is not this relay);
 *   `transport.network` when nothing answers; `transport.server_error` for another refusal.
 */
export async function newViewerLink(options: NewViewerLinkOptions): Promise<string> {
  const { sealed, key } = sealTicket(options.masterSecret);
  const base = options.relayUrl.replace(/\/+$/, '');
  let response: Response;
  try {
    response = await fetch(`${base}${NEW_TICKET_PATH}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${options.token}` },
      body: JSON.stringify({ sealed }),
      ...(options.signal ? { signal: options.signal } : {}),
    });
  } catch (error) {
    throw new SdkError('transport.network', `Nothing answered at ${base}.`, {
      hint: 'start the relay with `happy-session serve`, or check --server',
      cause: error,
    });
  }
  if (response.status === 404) {
    throw new SdkError<RelayErrorCode>(
      'relay.no_viewer',
      `${base} has no web viewer: it is not a happy-session relay.`,
      {
        hint: 'viewer links come from the relay `happy-session serve` runs; point --server (or HAPPY_SERVER_URL) at it',
      },
    );
  }
  if (!response.ok) {
    throw new SdkError(
      'transport.server_error',
      `${base} refused a new viewer link: HTTP ${response.status}.`,
      {
        hint: 'check that agent.key belongs to an account of this relay (`happy-session keygen` made it)',
        details: { status: response.status },
      },
    );
  }
  const { id } = (await response.json()) as { id: string };
  return ticketLink(base, id, key, options.sessionId);
}
