import type { SealedBlob } from '../crypto/sealedBlob.js';
import { DEFAULT_UPLOAD_CHUNK_BYTES } from '../media/limits.js';
import { Subject } from 'rxjs';
import type { Observable } from 'rxjs';

/** A request body that is pulled piece by piece, reporting how much of its payload has gone. */
export interface StreamedBody {
  readonly stream: ReadableStream<Uint8Array>;
  /** Every byte of the body, envelope included: the `Content-Length`. */
  readonly length: number;
  /** Payload bytes handed to the network so far; completes after the last one. */
  readonly progress$: Observable<number>;
}

/**
 * Wraps `payload` (between an optional `prefix` and `suffix`, the envelope of a multipart body)
 * in a stream that yields `chunkSize` pieces only as the HTTP client asks for them. A
 * {@link SealedBlob} payload is encrypted piece by piece as it is pulled, so no whole ciphertext
 * is ever held (docs/media.md, "Memory"). The client
 * pulls when the socket can take more, so the count {@link StreamedBody.progress$} reports
 * follows the bytes actually leaving, not a buffer filling up.
 */
export function streamedBody(
  payload: Uint8Array | SealedBlob,
  options: { prefix?: Uint8Array; suffix?: Uint8Array; chunkSize?: number } = {},
): StreamedBody {
  const chunkSize = Math.max(1, options.chunkSize ?? DEFAULT_UPLOAD_CHUNK_BYTES);
  const prefix = options.prefix ?? new Uint8Array(0);
  const suffix = options.suffix ?? new Uint8Array(0);
  const progress = new Subject<number>();
  let offset = 0;
  let prefixSent = prefix.length === 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        if (!prefixSent) {
          prefixSent = true;
          controller.enqueue(prefix);
          return;
        }
        if (offset < payload.length) {
          const piece = await pieceAt(payload, offset, chunkSize);
          controller.enqueue(piece);
          offset += piece.length;
          progress.next(offset);
          return;
        }
        if (suffix.length > 0) controller.enqueue(suffix);
        controller.close();
        progress.complete();
      },
      cancel() {
        progress.complete();
      },
    },
    // Nothing is read ahead: a piece leaves the payload only when the client asks for it.
    { highWaterMark: 0 },
  );
  return {
    stream,
    length: prefix.length + payload.length + suffix.length,
    progress$: progress.asObservable(),
  };
}

/**
 * The piece of `payload` at `offset`: a view of bytes (not a copy, so a 10 MB upload never holds a
 * second 10 MB), or a fresh array a sealed blob is read into (a `fetch` body may keep what it is
 * given, so its pieces cannot be refilled).
 */
async function pieceAt(
  payload: Uint8Array | SealedBlob,
  offset: number,
  chunkSize: number,
): Promise<Uint8Array> {
  if (payload instanceof Uint8Array) return payload.subarray(offset, offset + chunkSize);
  const piece = new Uint8Array(Math.min(chunkSize, payload.length - offset));
  const read = await payload.readInto(piece, offset);
  if (read !== piece.length)
    throw new Error(`the sealed blob ended at ${offset + read} of ${payload.length} bytes`);
  return piece;
}

/**
 * The envelope of a `multipart/form-data` body for an S3 presigned POST (docs/wire.md §8.1): every
 * form field first, then a `file` part named `blob` of type `application/octet-stream`.
 */
export function multipartEnvelope(
  fields: Readonly<Record<string, string>>,
  boundary: string,
): { prefix: Uint8Array; suffix: Uint8Array; contentType: string } {
  let head = '';
  for (const [name, value] of Object.entries(fields)) {
    head += `--${boundary}\r\nContent-Disposition: form-data; name="${escapeName(name)}"\r\n\r\n${value}\r\n`;
  }
  head +=
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="blob"\r\n` +
    'Content-Type: application/octet-stream\r\n\r\n';
  return {
    prefix: new TextEncoder().encode(head),
    suffix: new TextEncoder().encode(`\r\n--${boundary}--\r\n`),
    contentType: `multipart/form-data; boundary=${boundary}`,
  };
}

/** Field names escaped the way browsers do, so a quote or line break cannot end the header. */
function escapeName(name: string): string {
  return name.replaceAll('\r', '%0D').replaceAll('\n', '%0A').replaceAll('"', '%22');
}
