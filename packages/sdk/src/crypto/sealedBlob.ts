import { Poly1305 } from '@noble/ciphers/_poly1305.js';
import { xsalsa20 } from '@noble/ciphers/salsa.js';
import { assertLength, KEY_LENGTH } from './keyLength.js';
import { randomBytes } from './random.js';
import { SECRETBOX_NONCE_LENGTH, SECRETBOX_OVERHEAD } from './secretbox.js';

/** Salsa20 block size: keystream positions are addressed by block counter. */
const BLOCK = 64;
/** The first 32 keystream bytes are the Poly1305 key; the plaintext is XORed from byte 32 on. */
const POLY_KEY_LENGTH = 32;
/** Plaintext read per step while the tag is computed: memory stays O(this). */
const TAG_PASS_CHUNK = 64 * 1024;

/**
 * An attachment blob in the secretbox layout `nonce(24) || tag(16) || ciphertext` (docs/wire.md
 * §3.2), produced piece by piece instead of all at once: the same bytes as {@link encryptBlob},
 * with O(chunk) memory beyond the plaintext the caller already holds.
 *
 * @see docs/media.md, "Memory"
 */
export interface SealedBlob {
  /** Bytes of the whole blob: nonce, tag and ciphertext. */
  readonly length: number;
  /**
   * The blob from its first byte, in pieces of `chunkSize` bytes (the last may be shorter), the
   * header included in the first. Each call starts again, so a retried upload can read it again.
   */
  chunks(chunkSize: number): Iterable<Uint8Array>;
  /** The whole blob in one array (what a store that keeps blobs in memory needs anyway). */
  toBytes(): Uint8Array;
}

/** XORs `plain[from, to)` with the keystream at the matching position, into a fresh array. */
function encryptRange(
  key: Uint8Array,
  nonce: Uint8Array,
  plain: Uint8Array,
  from: number,
  to: number,
  scratch?: Uint8Array,
): Uint8Array {
  const position = POLY_KEY_LENGTH + from;
  const skip = position % BLOCK;
  const size = skip + (to - from);
  const buffer = scratch && scratch.length >= size ? scratch.subarray(0, size) : new Uint8Array(size);
  buffer.fill(0, 0, skip);
  buffer.set(plain.subarray(from, to), skip);
  xsalsa20(key, nonce, buffer, buffer, Math.floor(position / BLOCK));
  return buffer.subarray(skip);
}

/**
 * Seals attachment bytes as a {@link SealedBlob} in two passes over `plain`: the first computes
 * the Poly1305 tag that leads the blob, the second (each {@link SealedBlob.chunks} call)
 * regenerates the ciphertext piece by piece, XSalsa20 being deterministic for a key and nonce.
 * `plain` must not change while the blob is in use. Pass `nonce` only to reproduce test vectors.
 *
 * @throws {SdkError} `crypto.bad_key` for a wrong-sized key or nonce.
 * @see docs/wire.md §3.2
 */
export function sealBlobStream(
  plain: Uint8Array,
  blobKey: Uint8Array,
  options: { nonce?: Uint8Array } = {},
): SealedBlob {
  assertLength(blobKey, KEY_LENGTH, 'secretbox key');
  const nonce = options.nonce ?? randomBytes(SECRETBOX_NONCE_LENGTH);
  assertLength(nonce, SECRETBOX_NONCE_LENGTH, 'secretbox nonce');
  const key = blobKey.slice();
  const polyKey = xsalsa20(key, nonce, new Uint8Array(POLY_KEY_LENGTH));
  const mac = new Poly1305(polyKey);
  const scratch = new Uint8Array(TAG_PASS_CHUNK + BLOCK);
  for (let from = 0; from < plain.length; from += TAG_PASS_CHUNK) {
    mac.update(encryptRange(key, nonce, plain, from, Math.min(plain.length, from + TAG_PASS_CHUNK), scratch));
  }
  const head = new Uint8Array(SECRETBOX_OVERHEAD);
  head.set(nonce, 0);
  head.set(mac.digest(), SECRETBOX_NONCE_LENGTH);
  const length = SECRETBOX_OVERHEAD + plain.length;

  function* chunks(chunkSize: number): Iterable<Uint8Array> {
    const size = Math.max(1, Math.floor(chunkSize));
    for (let from = 0; from < length; from += size) {
      const to = Math.min(length, from + size);
      const ciphertextFrom = Math.max(0, from - SECRETBOX_OVERHEAD);
      const ciphertextTo = to - SECRETBOX_OVERHEAD;
      if (from >= SECRETBOX_OVERHEAD) {
        yield encryptRange(key, nonce, plain, ciphertextFrom, ciphertextTo);
        continue;
      }
      // The piece that holds (part of) the header.
      const piece = new Uint8Array(to - from);
      piece.set(head.subarray(from, Math.min(to, SECRETBOX_OVERHEAD)), 0);
      if (ciphertextTo > 0) {
        piece.set(encryptRange(key, nonce, plain, 0, ciphertextTo), SECRETBOX_OVERHEAD - from);
      }
      yield piece;
    }
  }

  return {
    length,
    chunks,
    toBytes() {
      const out = new Uint8Array(length);
      let at = 0;
      for (const piece of chunks(TAG_PASS_CHUNK)) {
        out.set(piece, at);
        at += piece.length;
      }
      return out;
    },
  };
}
