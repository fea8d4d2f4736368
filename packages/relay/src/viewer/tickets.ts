import { randomBytes } from 'node:crypto';
import { encodeBase64 } from 'happy-session/crypto';
import { assertLength, encodeBase64Url, KEY_LENGTH, secretboxSeal } from 'happy-session/internal';
import { TICKET_PARAM, viewerFragment } from './fragmentFormat.js';

/** Tickets the relay keeps unredeemed at most; a new one past this forgets the oldest. */
export const MAX_OPEN_TICKETS = 64;

/** A master secret sealed for a one-time link, and the key that opens it (for the link's fragment only). */
export interface SealedTicket {
  readonly sealed: string;
  readonly key: Uint8Array;
}

/**
 * Seals `masterSecret` (secretbox) under a fresh key, for a one-time link. Whoever seals keeps the
 * key: the relay (`serve`) or the `link` command, which sends only the sealed secret.
 *
 * @throws {SdkError} `crypto.bad_key` unless `masterSecret` is 32 bytes.
 */
export function sealTicket(masterSecret: Uint8Array): SealedTicket {
  assertLength(masterSecret, KEY_LENGTH, 'master secret');
  const key = new Uint8Array(randomBytes(KEY_LENGTH));
  return { sealed: encodeBase64(secretboxSeal(masterSecret, key)), key };
}

/** The one-time link of ticket `id` opened with `key`: `<relayUrl>/#ticket=<id>.<key>[&session=<id>]`. */
export function ticketLink(relayUrl: string, id: string, key: Uint8Array, sessionId?: string): string {
  const base = relayUrl.replace(/\/+$/, '');
  return `${base}/${viewerFragment(TICKET_PARAM, `${id}.${encodeBase64Url(key)}`, sessionId)}`;
}

/**
 * One-time viewer links (docs/viewer.md, "How the page gets the key"). The relay keeps the master
 * secret only sealed (secretbox) under a fresh key that goes in the link's fragment and nowhere
 * else; the page posts the ticket's id, gets the sealed secret once, and opens it with the key
 * from its own address bar. The relay never holds the secret in the clear, nothing on the wire
 * carries it, and a copy of the link in a log opens nothing once the page has used it.
 */
export class ViewerTickets {
  private readonly sealed = new Map<string, string>();

  /**
   * A link that opens the viewer on the account of `masterSecret` once.
   *
   * @throws {SdkError} `crypto.bad_key` unless `masterSecret` is 32 bytes.
   */
  link(relayUrl: string, masterSecret: Uint8Array, sessionId?: string): string {
    const { sealed, key } = sealTicket(masterSecret);
    return ticketLink(relayUrl, this.put(sealed), key, sessionId);
  }

  /** Keeps a sealed secret until it is redeemed once; returns the ticket's id. */
  put(sealed: string): string {
    const id = randomBytes(16).toString('base64url');
    this.sealed.set(id, sealed);
    while (this.sealed.size > MAX_OPEN_TICKETS) this.sealed.delete(this.sealed.keys().next().value!);
    return id;
  }

  /** The sealed secret of ticket `id`, once; `undefined` for an unknown or used ticket. */
  redeem(id: string): string | undefined {
    const sealed = this.sealed.get(id);
    this.sealed.delete(id);
    return sealed;
  }

  /** Forgets every ticket (the relay is closing). */
  clear(): void {
    this.sealed.clear();
  }
}
