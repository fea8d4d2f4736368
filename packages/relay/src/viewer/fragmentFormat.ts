/** Fragment key of the base64url master secret. */
export const SECRET_PARAM = 'secret';
/** Fragment key of a one-time ticket: `<id>.<base64url key>`. */
export const TICKET_PARAM = 'ticket';
/** Fragment key of the session to open first. */
export const SESSION_PARAM = 'session';
/** Path the page posts a ticket's id to, once, for the sealed secret (docs/viewer.md). */
export const TICKET_PATH = '/viewer/ticket';
/** Path an account holder posts a sealed secret to for a new one-time link (`happy-session link`). */
export const NEW_TICKET_PATH = '/viewer/tickets';

/**
 * A viewer URL fragment: `#<name>=<value>[&session=<id>]`. Shared by the page (which reads it)
 * and the relay (which prints it); no imports, so both the browser bundle and the Node build can
 * use it.
 */
export function viewerFragment(
  name: typeof SECRET_PARAM | typeof TICKET_PARAM,
  value: string,
  sessionId?: string,
): string {
  const params = new URLSearchParams({ [name]: value });
  if (sessionId !== undefined) params.set(SESSION_PARAM, sessionId);
  return `#${params.toString()}`;
}
