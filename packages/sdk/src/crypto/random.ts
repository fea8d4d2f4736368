/** `getRandomValues` fills at most this many bytes per call (WebCrypto quota). */
const MAX_CHUNK = 65_536;

/**
 * `n` cryptographically secure random bytes from the platform's WebCrypto, so the same code runs
 * in Node 20+ and in browsers.
 */
export function randomBytes(n: number): Uint8Array {
  const out = new Uint8Array(n);
  for (let offset = 0; offset < n; offset += MAX_CHUNK) {
    globalThis.crypto.getRandomValues(out.subarray(offset, Math.min(n, offset + MAX_CHUNK)));
  }
  return out;
}
