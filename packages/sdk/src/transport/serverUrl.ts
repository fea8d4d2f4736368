import { SdkError } from '../errors.js';

/**
 * Checks that `url` is what a Happy server's address looks like, `http(s)://host[:port]`, and
 * returns it without a trailing `/`. A URL without a scheme, with a path (`…/v1`), a query or a
 * fragment is refused at once with the right form in the hint, instead of failing later with a
 * misleading "nothing answered" or "session not found" (docs/transport.md, "Where the server and the credentials come from").
 *
 * @throws {SdkError} `transport.bad_server_url`.
 */
export function checkServerUrl(url: string): string {
  const given = url.trim();
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(given) ? given : undefined;
  let parsed: URL | undefined;
  try {
    parsed = new URL(withScheme ?? `http://${given}`);
  } catch {
    parsed = undefined;
  }
  const right = parsed ? `${parsed.protocol === 'https:' ? 'https' : 'http'}://${parsed.host}` : undefined;
  const refuse = (why: string): never => {
    throw new SdkError('transport.bad_server_url', `The server URL ${JSON.stringify(url)} ${why}.`, {
      hint: right
        ? `write it as ${right} (HAPPY_SERVER_URL, --server or connect({ server }))`
        : 'write it as http://host:port or https://host (HAPPY_SERVER_URL, --server or connect({ server }))',
      details: { url, ...(right ? { suggested: right } : {}) },
    });
  };
  if (!parsed || parsed.host === '') return refuse('is not a URL');
  if (!withScheme) return refuse('has no scheme');
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return refuse('is not http or https');
  if (parsed.username !== '' || parsed.password !== '') return refuse('holds a user name or password');
  if (parsed.pathname !== '/' && parsed.pathname !== '') return refuse(`has a path (${parsed.pathname})`);
  if (parsed.search !== '' || parsed.hash !== '') return refuse('has a query or a fragment');
  return right!;
}
