import { randomBytes } from 'node:crypto';
import { assertLength, encodeBase64, encodeBase64Url, KEY_LENGTH, secretboxSeal } from 'happy-session/crypto';
import { TICKET_PARAM, viewerFragment } from './fragmentFormat.js';

/**
 * One-time viewer links (docs/viewer.md, "How the page gets the key"). The relay keeps the master
 * secret only sealed (secretbox) under a fresh key that it puts in the link's fragment and then
 * forgets; the page posts the ticket's id, gets the sealed secret once, and opens it with the key
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
    assertLength(masterSecret, KEY_LENGTH, 'master secret');
    const id = randomBytes(16).toString('base64url');
    const key = new Uint8Array(randomBytes(KEY_LENGTH));
    this.sealed.set(id, encodeBase64(secretboxSeal(masterSecret, key)));
    const base = relayUrl.replace(/\/+$/, '');
    return `${base}/${viewerFragment(TICKET_PARAM, `${id}.${encodeBase64Url(key)}`, sessionId)}`;
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
