import { readFile } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { blobKeyFor, decryptBlob } from '../crypto/blob.js';
import type { RecordKey } from '../crypto/records.js';
import type { SessionMessage } from '../protocol/sessionMessage.js';
import { abortedError, isAbortError, mediaError, throwIfAborted } from './mediaError.js';
import { MACHINE_FILE_PREFIX, isMediaMessage } from './mediaMessage.js';
import type { DownloadOptions, MediaUploader } from './uploader.js';

/** Options of a {@link MediaReader}. */
export interface MediaReaderOptions {
  /** Where the session's blobs are stored (the uploader that stored them, or one for the same server). */
  readonly uploader: MediaUploader;
  /** The session's record key; blobs are decrypted with its blob key (docs/wire.md §3.2). */
  readonly key: RecordKey;
}

/**
 * Fetches the content of `photo` / `video` / `file` messages (docs/wire.md §8.2): downloads the
 * encrypted blob by `ref` and decrypts it with the session's blob key, or reads a
 * `machine-file://` ref from this machine's disk.
 */
export class MediaReader {
  private readonly uploader: MediaUploader;
  private readonly blobKey: Uint8Array;

  constructor(options: MediaReaderOptions) {
    this.uploader = options.uploader;
    this.blobKey = blobKeyFor(options.key);
  }

  /**
   * The plaintext bytes of a media message. A `machine-file://` ref is honoured only on an agent
   * message: the path is this machine's, and a user's message must not choose which local file the
   * program reads.
   *
   * Errors: `media.bad_ref` (not a media message, or a machine-file ref from the user),
   * `media.unreadable_path`, `media.download_failed`, `media.decrypt_failed`, `media.aborted`.
   */
  async fetch(message: SessionMessage, options: DownloadOptions = {}): Promise<Buffer> {
    throwIfAborted(options.signal);
    if (!isMediaMessage(message)) {
      throw mediaError(
        'media.bad_ref',
        `A ${message.type} message has no attachment`,
        'Pass a photo, video or file message',
        { details: { type: message.type, id: message.id } },
      );
    }
    const { ref } = message;
    if (ref.startsWith(MACHINE_FILE_PREFIX)) return readMachineFile(message.role, ref, options.signal);
    const encrypted = await this.uploader.download(ref, options);
    const opened = decryptBlob(encrypted, this.blobKey);
    if (!opened.ok) {
      throw mediaError(
        'media.decrypt_failed',
        `The attachment ${ref} does not decrypt with this session's key (${opened.error.message})`,
        'It was encrypted for another session or changed in storage; it cannot be read with this key',
        { details: { ref, reason: opened.error.code } },
      );
    }
    return Buffer.from(opened.value.buffer, opened.value.byteOffset, opened.value.byteLength);
  }
}

/**
 * Downloads and decrypts the content of a media message; see {@link MediaReader.fetch}.
 *
 * @example
 * const bytes = await fetchMedia(message, { uploader, key: session.key });
 */
export function fetchMedia(
  message: SessionMessage,
  options: MediaReaderOptions & DownloadOptions,
): Promise<Buffer> {
  return new MediaReader(options).fetch(message, options.signal ? { signal: options.signal } : {});
}

async function readMachineFile(role: string, ref: string, signal: AbortSignal | undefined): Promise<Buffer> {
  const path = ref.slice(MACHINE_FILE_PREFIX.length);
  if (role !== 'agent' || !isAbsolute(path)) {
    throw mediaError(
      'media.bad_ref',
      role !== 'agent'
        ? `A ${role} message cannot point at a file on this machine (${ref})`
        : `${ref} does not name an absolute path`,
      'machine-file:// refs are read only from agent messages, with an absolute path',
      { details: { ref, role } },
    );
  }
  try {
    return await readFile(path, signal ? { signal } : {});
  } catch (cause) {
    if (isAbortError(cause)) throw abortedError(signal);
    throw mediaError(
      'media.unreadable_path',
      `${path}, referenced as ${ref}, cannot be read`,
      'The file was moved or deleted since it was attached, or this is not the machine it is on',
      { cause, details: { path, errno: (cause as NodeJS.ErrnoException).code } },
    );
  }
}
