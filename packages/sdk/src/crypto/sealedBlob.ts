import { Poly1305 } from '@stablelib/poly1305';
import { xsalsa20 } from '@noble/ciphers/salsa.js';
import { assertLength, KEY_LENGTH } from './keyLength.js';
import { randomBytes } from './random.js';
import { SECRETBOX_NONCE_LENGTH, SECRETBOX_OVERHEAD } from './secretbox.js';

/** Salsa20 block size: keystream positions are addressed by block counter. */
const BLOCK = 64;
/** The first 32 keystream bytes are the Poly1305 key; the plaintext is XORed from byte 32 on. */
const POLY_KEY_LENGTH = 32;
/** Plaintext encrypted per keystream call, and read per step of the tag pass. */
const PASS_CHUNK = 64 * 1024;

/**
 * An attachment blob in the secretbox layout `nonce(24) || tag(16) || ciphertext` (docs/wire.md
 * §3.2), read piece by piece into buffers the caller owns, instead of built all at once: the same
 * bytes as {@link encryptBlob}, with O(piece) memory beyond the plaintext's source.
 *
 * @see docs/media.md, "Memory"
 */
export interface SealedBlob {
  /** Bytes of the whole blob: nonce, tag and ciphertext. */
  readonly length: number;
  /**
   * Writes the blob's bytes from `position` on into `into` and returns how many: `into.length`,
   * fewer only at the blob's end. The blob keeps no reference to `into`, so a caller may refill the
   * same few buffers for a whole upload. A promise when the plaintext is read from a file.
   */
  readInto(into: Uint8Array, position: number): number | Promise<number>;
}

/** A {@link SealedBlob} of plaintext held in memory: read synchronously, or in fresh pieces. */
export interface SealedBytes extends SealedBlob {
  /** {@link SealedBlob.readInto}, synchronous: the plaintext is in memory. */
  readInto(into: Uint8Array, position: number): number;
  /**
   * The blob from its first byte, in fresh arrays of `chunkSize` bytes (the last may be shorter),
   * the header included in the first. Each call starts again, so a retried upload can read it again.
   */
  chunks(chunkSize: number): Iterable<Uint8Array>;
  /** The whole blob in one array (what a store that keeps blobs in memory needs anyway). */
  toBytes(): Uint8Array;
}

/**
 * The keystream and the authenticator of one blob (docs/wire.md §3.2), for sealing a blob whose
 * plaintext is read in pieces: {@link sealBlobStream} in memory, `media/sealedFile.ts` from a file.
 * XSalsa20 is deterministic for a key and nonce, so any piece can be encrypted again at any time.
 */
export class BlobSealer {
  /** The blob's nonce: random unless one was given (to reproduce test vectors). */
  readonly nonce: Uint8Array;
  private readonly key: Uint8Array;
  private readonly polyKey: Uint8Array;
  /** One block more than a chunk, so a piece that starts inside a block still fits. */
  private readonly scratch = new Uint8Array(PASS_CHUNK + BLOCK);

  /** @throws {SdkError} `crypto.bad_key` for a wrong-sized key or nonce. */
  constructor(blobKey: Uint8Array, nonce?: Uint8Array) {
    assertLength(blobKey, KEY_LENGTH, 'secretbox key');
    this.nonce = nonce ?? randomBytes(SECRETBOX_NONCE_LENGTH);
    assertLength(this.nonce, SECRETBOX_NONCE_LENGTH, 'secretbox nonce');
    this.key = blobKey.slice();
    this.polyKey = xsalsa20(this.key, this.nonce, new Uint8Array(POLY_KEY_LENGTH));
  }

  /** Turns `piece`, the plaintext from ciphertext offset `position` on, into its ciphertext in place. */
  encrypt(piece: Uint8Array, position: number): void {
    for (let done = 0; done < piece.length;) {
      const at = POLY_KEY_LENGTH + position + done;
      const skip = at % BLOCK;
      const count = Math.min(piece.length - done, PASS_CHUNK);
      const work = this.scratch.subarray(0, skip + count);
      work.fill(0, 0, skip);
      work.set(piece.subarray(done, done + count), skip);
      xsalsa20(this.key, this.nonce, work, work, Math.floor(at / BLOCK));
      piece.set(work.subarray(skip), done);
      done += count;
    }
  }

  /**
   * A fresh Poly1305 for this blob: fed the whole ciphertext in order, its digest is the tag. It
   * reads each piece where it is (noble's copies every piece it is given: 10 MB of garbage a pass).
   */
  authenticator(): { update(ciphertext: Uint8Array): void; digest(): Uint8Array } {
    return new Poly1305(this.polyKey);
  }

  /** `nonce || tag`, the 40 bytes that lead the blob. */
  header(tag: Uint8Array): Uint8Array {
    const head = new Uint8Array(SECRETBOX_OVERHEAD);
    head.set(this.nonce, 0);
    head.set(tag, SECRETBOX_NONCE_LENGTH);
    return head;
  }
}

/** Bytes of plaintext a tag pass reads at a time; the size of the buffers a file sealer reuses. */
export const SEAL_PASS_BYTES = PASS_CHUNK;

/**
 * Where a read of `into.length` blob bytes from `position` lands in a blob with header `head` and
 * `plaintextLength` bytes of ciphertext: the header's part is copied into `into` here; `ciphertext`
 * is the rest of `into` with the ciphertext offset it starts at, for the caller to fill. `count` is
 * what the read returns.
 */
export function placeBlobRead(
  head: Uint8Array,
  plaintextLength: number,
  into: Uint8Array,
  position: number,
): { count: number; ciphertext?: { target: Uint8Array; position: number } } {
  const end = Math.min(SECRETBOX_OVERHEAD + plaintextLength, position + into.length);
  if (end <= position) return { count: 0 };
  let at = 0;
  if (position < SECRETBOX_OVERHEAD) {
    const part = head.subarray(position, Math.min(SECRETBOX_OVERHEAD, end));
    into.set(part, 0);
    at = part.length;
  }
  const count = end - position;
  if (end <= SECRETBOX_OVERHEAD) return { count };
  const target = into.subarray(at, count);
  return { count, ciphertext: { target, position: Math.max(0, position - SECRETBOX_OVERHEAD) } };
}

/**
 * Seals attachment bytes as a {@link SealedBytes} in two passes over `plain`: the first computes
 * the Poly1305 tag that leads the blob, the second (each read) regenerates the ciphertext piece by
 * piece. `plain` must not change while the blob is in use. Pass `nonce` only to reproduce test
 * vectors.
 *
 * @throws {SdkError} `crypto.bad_key` for a wrong-sized key or nonce.
 * @see docs/wire.md §3.2
 */
export function sealBlobStream(
  plain: Uint8Array,
  blobKey: Uint8Array,
  options: { nonce?: Uint8Array } = {},
): SealedBytes {
  const sealer = new BlobSealer(blobKey, options.nonce);
  const mac = sealer.authenticator();
  const piece = new Uint8Array(PASS_CHUNK);
  for (let from = 0; from < plain.length; from += PASS_CHUNK) {
    const part = piece.subarray(0, Math.min(PASS_CHUNK, plain.length - from));
    part.set(plain.subarray(from, from + part.length));
    sealer.encrypt(part, from);
    mac.update(part);
  }
  const head = sealer.header(mac.digest());
  const length = SECRETBOX_OVERHEAD + plain.length;
  const readInto = (into: Uint8Array, position: number): number => {
    const { count, ciphertext } = placeBlobRead(head, plain.length, into, position);
    if (ciphertext) {
      ciphertext.target.set(
        plain.subarray(ciphertext.position, ciphertext.position + ciphertext.target.length),
      );
      sealer.encrypt(ciphertext.target, ciphertext.position);
    }
    return count;
  };

  function* chunks(chunkSize: number): Iterable<Uint8Array> {
    const size = Math.max(1, Math.floor(chunkSize));
    for (let from = 0; from < length; from += size) {
      const out = new Uint8Array(Math.min(size, length - from));
      readInto(out, from);
      yield out;
    }
  }

  return {
    length,
    readInto,
    chunks,
    toBytes() {
      const out = new Uint8Array(length);
      readInto(out, 0);
      return out;
    },
  };
}

/**
 * The whole of a {@link SealedBlob} in one array, for a store that keeps blobs in memory (or an
 * uploader that takes only whole blobs).
 */
export async function sealedBlobBytes(blob: SealedBlob): Promise<Uint8Array> {
  const out = new Uint8Array(blob.length);
  for (let at = 0; at < out.length;) {
    const read = await blob.readInto(out.subarray(at, Math.min(out.length, at + PASS_CHUNK)), at);
    if (read === 0) break;
    at += read;
  }
  return out;
}
