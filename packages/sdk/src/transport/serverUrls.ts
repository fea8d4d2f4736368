/** Host names that only mean "this machine", whoever reads them. */
const LOCAL_HOSTS: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]', '0.0.0.0']);

/**
 * The URL to use for an upload or download URL the server handed out. A server in local-storage
 * mode builds it from its own idea of its address (no `PUBLIC_URL`, behind a port forward) and
 * may name localhost; like the Happy app, send such a request to the server URL we reached it at
 * instead (docs/wire.md §8.1). Only URLs of the server's own attachment routes (`ownPath`) are
 * rewritten: a presigned URL of a storage service on this machine (a local MinIO) stays as it is.
 */
export function reachableUrl(url: string, serverUrl: string, ownPath: string): string {
  const parsed = new URL(url);
  const server = new URL(serverUrl);
  if (!LOCAL_HOSTS.has(parsed.hostname) || parsed.host === server.host) return url;
  if (!parsed.pathname.startsWith(ownPath)) return url;
  return `${server.origin}${parsed.pathname}${parsed.search}`;
}

/**
 * True when `url` is one of the server's own routes, the only requests that may carry the bearer
 * token; a presigned storage URL must get no extra headers (docs/wire.md §8.1, §8.2).
 */
export function isServerUrl(url: string, serverUrl: string): boolean {
  const base = serverUrl.replace(/\/+$/, '');
  return url === base || url.startsWith(`${base}/`) || url.startsWith(`${base}?`);
}

/** The URL without its query string, for logs and errors: a presigned query is a credential. */
export function withoutQuery(url: string): string {
  const parsed = new URL(url);
  return `${parsed.origin}${parsed.pathname}`;
}
