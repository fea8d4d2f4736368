/** `getRandomValues` fills at most this many bytes per call (WebCrypto quota). */
const MAX_CHUNK = 65_536;
/** Requests up to this size are served from a pool: one platform call per 4 KiB of nonces. */
const POOLED_MAX = 64;

const pool = new Uint8Array(4096);
let next = pool.length;

/**
 * `n` cryptographically secure random bytes from the platform's WebCrypto, so the same code runs
 * in Node 20+ and in browsers. Small requests (nonces) come from a pool refilled 4 KiB at a
 * time: a platform call per record nonce was a visible part of an append (docs/performance.md).
 * Every byte is handed out once.
 */
export function randomBytes(n: number): Uint8Array {
  if (n <= POOLED_MAX) {
    if (next + n > pool.length) {
      globalThis.crypto.getRandomValues(pool);
      next = 0;
    }
    const out = pool.slice(next, next + n);
    next += n;
    return out;
  }
  const out = new Uint8Array(n);
  for (let offset = 0; offset < n; offset += MAX_CHUNK) {
    globalThis.crypto.getRandomValues(out.subarray(offset, Math.min(n, offset + MAX_CHUNK)));
  }
  return out;
}
