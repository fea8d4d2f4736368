/** Fragment key of the base64url master secret. */
export const SECRET_PARAM = 'secret';
/** Fragment key of the session to open first. */
export const SESSION_PARAM = 'session';

/**
 * The viewer's URL fragment for a secret and a session: `#secret=<base64url>[&session=<id>]`.
 * Shared by the page (which reads it) and {@link viewerUrl} (which prints it); no imports, so both
 * the browser bundle and the Node build can use it.
 */
export function viewerFragment(secretBase64Url: string, sessionId?: string): string {
  const params = new URLSearchParams({ [SECRET_PARAM]: secretBase64Url });
  if (sessionId !== undefined) params.set(SESSION_PARAM, sessionId);
  return `#${params.toString()}`;
}
