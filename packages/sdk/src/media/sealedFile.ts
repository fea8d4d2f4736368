import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import { BlobSealer, placeBlobRead, SEAL_PASS_BYTES, sealBlobStream } from '../crypto/sealedBlob.js';
import type { SealedBlob } from '../crypto/sealedBlob.js';
import { SECRETBOX_OVERHEAD } from '../crypto/secretbox.js';
import { isSdkError } from '../errors.js';
import type { MediaFile } from './input.js';
import { unreadablePath } from './input.js';
import { mediaError } from './mediaError.js';
import type { MediaError } from './mediaError.js';
import type { MediaSource } from './prepare.js';

/**
 * Runs `use` with the {@link SealedBlob} of a prepared attachment's bytes: {@link sealBlobStream}
 * of bytes in memory, or {@link sealFile} of a file read where it is (closed again afterwards).
 */
export async function withSealedSource<T>(
  source: MediaSource,
  blobKey: Uint8Array,
  use: (blob: SealedBlob) => Promise<T>,
): Promise<T> {
  if ('bytes' in source) return use(sealBlobStream(source.bytes, blobKey));
  let handle: FileHandle;
  try {
    handle = await open(source.file.path, 'r');
  } catch (cause) {
    throw unreadablePath(source.file.path, cause);
  }
  try {
    return await use(await sealFile(handle, source.file, blobKey));
  } finally {
    await handle.close();
  }
}

/**
 * Seals an attachment's file as a {@link SealedBlob} without reading it into memory (docs/media.md,
 * "Memory"): a first pass reads it piece by piece to compute the tag that leads the blob, and every
 * later read encrypts the pieces it reads again. Memory stays at one piece.
 *
 * Reading the file twice is safe only while it stays the same, so the file must still have the
 * size and time of change it had when it was prepared, and a read from the first byte to the last
 * checks the ciphertext it produced against the tag before it gives out the last piece: a file
 * that changed in between fails that read with `media.file_changed`, and the upload built on it
 * never completes, so the server never stores a blob that does not open.
 */
export async function sealFile(
  handle: FileHandle,
  file: MediaFile,
  blobKey: Uint8Array,
): Promise<SealedBlob> {
  const stats = await handle.stat().catch((cause: unknown) => {
    throw unreadablePath(file.path, cause);
  });
  if (stats.size !== file.size || stats.mtimeMs !== file.mtimeMs) throw fileChanged(file);
  const sealer = new BlobSealer(blobKey);
  const mac = sealer.authenticator();
  const piece = new Uint8Array(SEAL_PASS_BYTES);
  for (let from = 0; from < file.size; from += SEAL_PASS_BYTES) {
    const part = piece.subarray(0, Math.min(SEAL_PASS_BYTES, file.size - from));
    await readFully(handle, file, part, from);
    sealer.encrypt(part, from);
    mac.update(part);
  }
  const tag = mac.digest();
  const head = sealer.header(tag);
  // The check of the read in progress: the next ciphertext offset it expects, and its MAC so far.
  let check: { next: number; mac: ReturnType<BlobSealer['authenticator']> } | undefined;

  return {
    length: SECRETBOX_OVERHEAD + file.size,
    async readInto(into, position) {
      const { count, ciphertext } = placeBlobRead(head, file.size, into, position);
      if (!ciphertext) return count;
      const { target, position: from } = ciphertext;
      await readFully(handle, file, target, from);
      sealer.encrypt(target, from);
      if (from === 0) check = { next: 0, mac: sealer.authenticator() };
      // Only a read in order is checked; one that skips around cannot be, and ends the check.
      if (check?.next !== from) {
        check = undefined;
        return count;
      }
      check.mac.update(target);
      check.next += target.length;
      if (check.next === file.size && !sameBytes(check.mac.digest(), tag)) throw fileChanged(file);
      return count;
    },
  };
}

/** Fills `into` from the file at `position`; a file that ends early changed since it was prepared. */
async function readFully(
  handle: FileHandle,
  file: MediaFile,
  into: Uint8Array,
  position: number,
): Promise<void> {
  for (let done = 0; done < into.length;) {
    let bytesRead: number;
    try {
      ({ bytesRead } = await handle.read(into, done, into.length - done, position + done));
    } catch (cause) {
      throw isSdkError(cause) ? cause : unreadablePath(file.path, cause);
    }
    if (bytesRead === 0) throw fileChanged(file);
    done += bytesRead;
  }
}

function fileChanged(file: MediaFile): MediaError {
  return mediaError(
    'media.file_changed',
    `${file.path} changed while it was being attached`,
    'Attach it again once it is completely written (or attach a copy of it); nothing was appended',
    { details: { path: file.path, size: file.size } },
  );
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}
