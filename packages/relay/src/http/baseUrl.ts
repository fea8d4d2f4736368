import type { IncomingHttpHeaders } from 'node:http';

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The base URL a client should use to reach this relay's own upload and download routes: the
 * configured public URL, else the forwarded host and protocol, else the `Host` the request came
 * in on (docs/wire.md §8.1).
 */
export function resolveBaseUrl(
  publicUrl: string | undefined,
  headers: IncomingHttpHeaders,
  fallback: string,
): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  const host = first(headers['x-forwarded-host']) ?? headers.host;
  const proto = first(headers['x-forwarded-proto']) ?? 'http';
  if (host) return `${proto}://${host}`;
  return fallback;
}
