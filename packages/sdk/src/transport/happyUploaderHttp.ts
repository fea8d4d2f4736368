import { request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { SealedBlob } from '../crypto/sealedBlob.js';

/** What a server answered to an upload. */
export interface UploadAnswer {
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  /** The answer's body as text (upload answers are short JSON, or nothing). */
  readonly text: string;
}

/** An upload request: where, how, and the body around its payload. */
export interface UploadRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Record<string, string>;
  /** The multipart envelope around the payload, when there is one. */
  readonly prefix?: Uint8Array;
  readonly suffix?: Uint8Array;
  readonly payload: Uint8Array | SealedBlob;
  /** Size of the pieces the payload is written in. */
  readonly chunkSize: number;
  readonly signal?: AbortSignal;
  /** Payload bytes the socket has taken so far, after each piece. */
  readonly onSent?: (sent: number) => void;
}

/**
 * Buffers a sealed payload is read into, in turn. A buffer is refilled only once the socket has
 * taken what it held (its write callback ran), so an upload holds these and nothing per piece:
 * no garbage piles up between collections (docs/performance.md, "Media").
 */
const RING = 2;

/**
 * Sends one upload with `node:http` / `node:https`, writing the body piece by piece and honouring
 * backpressure (the next write waits for `drain`). A {@link SealedBlob} payload is encrypted into a
 * fixed ring of buffers as it goes; a byte payload is written as views of itself, never copied.
 *
 * Resolves with the server's answer, whatever its status (a server may answer early, a 413 say,
 * before the body is through: the rest is then not sent). Rejects with the request's error when
 * the connection fails or drops, with the `AbortError` of `signal`, or with the error a
 * {@link SealedBlob.readInto} threw, in which case the request is destroyed before its body is
 * complete, so the server never stores a partial blob.
 */
export function sendUpload(upload: UploadRequest): Promise<UploadAnswer> {
  const target = new URL(upload.url);
  const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise<UploadAnswer>((resolve, reject) => {
    let answered = false;
    const req = request(target, {
      method: upload.method,
      headers: upload.headers,
      ...(upload.signal ? { signal: upload.signal } : {}),
    });
    req.on('error', reject);
    req.once('response', (res) => {
      answered = true;
      const pieces: Buffer[] = [];
      res.on('data', (piece: Buffer) => pieces.push(piece));
      res.on('error', reject);
      res.once('end', () => {
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          text: Buffer.concat(pieces).toString(),
        });
        // An early answer leaves the body unfinished: that connection cannot carry another request.
        if (!req.writableFinished) req.destroy();
      });
    });
    writeBody(req, upload, () => answered).then(
      (complete) => {
        if (complete) req.end();
      },
      (error: unknown) => {
        req.destroy(error instanceof Error ? error : new Error(String(error)));
        reject(error);
      },
    );
  });
}

/** Writes the whole body; false when the server answered first and the rest was left unsent. */
async function writeBody(
  req: ClientRequest,
  upload: UploadRequest,
  answered: () => boolean,
): Promise<boolean> {
  if (upload.prefix && upload.prefix.length > 0) await write(req, upload.prefix);
  const { payload } = upload;
  const size = Math.max(1, Math.min(upload.chunkSize, payload.length));
  const ring: Array<{ buffer: Uint8Array; free: Promise<void> }> = [];
  let sent = 0;
  let last = Promise.resolve();
  for (let position = 0, turn = 0; position < payload.length; turn = (turn + 1) % RING) {
    if (answered() || req.destroyed) return false;
    let piece: Uint8Array;
    let slot: { buffer: Uint8Array; free: Promise<void> } | undefined;
    if (payload instanceof Uint8Array) {
      piece = payload.subarray(position, position + size);
    } else {
      slot = ring[turn] ??= { buffer: new Uint8Array(size), free: Promise.resolve() };
      await slot.free;
      piece = slot.buffer.subarray(0, await payload.readInto(slot.buffer, position));
      if (piece.length === 0) throw new Error(`the payload ended at ${position} of ${payload.length} bytes`);
    }
    position += piece.length;
    const count = piece.length;
    last = write(req, piece).then(() => upload.onSent?.((sent += count)));
    if (slot) slot.free = last;
    // Only the last write is awaited (below); earlier ones just gate their buffer's reuse.
    last.catch(() => undefined);
    if (req.writableNeedDrain) await drained(req);
  }
  await last;
  if (answered() || req.destroyed) return false;
  if (upload.suffix && upload.suffix.length > 0) await write(req, upload.suffix);
  return true;
}

/** Resolves once the socket has taken `bytes` (its write callback ran). */
function write(req: ClientRequest, bytes: Uint8Array): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    req.write(bytes, (error) => (error ? reject(error) : resolve()));
  });
}

function drained(req: ClientRequest): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      req.off('drain', done);
      req.off('close', done);
      resolve();
    };
    req.once('drain', done);
    req.once('close', done);
  });
}
