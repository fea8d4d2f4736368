import { randomBytes } from 'node:crypto';
import type { SealedBlob } from '../crypto/sealedBlob.js';
import type * as z from '../zod.js';
import { DownloadTicketSchema, UploadTicketSchema } from '../wire/attachments.js';
import type { UploadTicket } from '../wire/attachments.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { isSdkError } from '../errors.js';
import type { SdkError } from '../errors.js';
import type { HappyHttp } from './httpClient.js';
import { httpNetworkError, httpStatusError } from './httpErrors.js';
import { DEFAULT_UPLOAD_CHUNK_BYTES, MAX_ENCRYPTED_ATTACHMENT_BYTES } from '../media/limits.js';
import { mediaError } from '../media/mediaError.js';
import type { MediaError } from '../media/mediaError.js';
import { withRetries } from '../media/retry.js';
import type { RetryFailure, RetryOptions } from '../media/retry.js';
import { isServerUrl, reachableUrl, withoutQuery } from './serverUrls.js';
import { REFUSED_TOKEN_HINT } from './keyHints.js';
import { multipartEnvelope, streamedBody } from './uploadBody.js';
import { sendUpload } from './happyUploaderHttp.js';
import type { UploadAnswer } from './happyUploaderHttp.js';
import type { DownloadOptions, MediaUploader, UploadOptions, UploadResult } from '../media/uploader.js';

/** Options of a {@link HappyUploader}. */
export interface HappyUploaderOptions {
  /** The session's server, with the account's token: asks for upload and download URLs. */
  readonly http: HappyHttp;
  /**
   * The token sent as `Bearer` to the server's own upload and download URLs only; default the one
   * `http` sends at that moment (so a renewed token is used, docs/transport.md, "Tokens").
   */
  readonly token?: string;
  readonly sessionId: string;
  /**
   * A fetch implementation for the transfers. By default uploads go out through `node:http` /
   * `node:https`, which report when the socket has taken each piece, so an upload reuses a fixed
   * pair of buffers (docs/media.md, "Memory"), and downloads use the global `fetch`. Given one,
   * both use it, and the upload body is a stream of fresh pieces.
   */
  readonly fetch?: typeof fetch;
  readonly retry?: RetryOptions;
  /** Pieces the upload body is sent in (and progress moves by); default 64 KiB. */
  readonly chunkSize?: number;
  /** Longest one transfer try may take; default 2 minutes. */
  readonly transferTimeoutMs?: number;
  readonly logger?: Logger;
}

/**
 * Uploads encrypted attachments to a Happy server or the relay, and downloads them (docs/wire.md
 * §8.1, §8.2): ask for an upload URL with the encrypted size, then `PUT` the blob (local storage)
 * or `POST` it as multipart with the presigned form fields (S3). The body is streamed in pieces,
 * so progress reports bytes that left. Failures are retried by the SDK's one retry policy
 * (network failures, 408, 429 after its `Retry-After`, 5xx); any other 4xx fails at once with
 * `media.upload_rejected`.
 */
export class HappyUploader implements MediaUploader {
  private readonly http: HappyHttp;
  private readonly token: string | undefined;
  private readonly sessionId: string;
  private readonly fetchImpl: typeof fetch | undefined;
  private readonly retry: RetryOptions;
  private readonly chunkSize: number | undefined;
  private readonly transferTimeoutMs: number;
  private readonly logger: Logger;

  constructor(options: HappyUploaderOptions) {
    this.http = options.http;
    this.token = options.token;
    this.sessionId = options.sessionId;
    this.fetchImpl = options.fetch;
    this.retry = options.retry ?? {};
    this.chunkSize = options.chunkSize;
    this.transferTimeoutMs = options.transferTimeoutMs ?? 120_000;
    this.logger = options.logger ?? silentLogger;
  }

  /** The path of the server's own upload and download routes for this session. */
  private get ownPath(): string {
    return `/v1/sessions/${this.sessionId}/attachments/`;
  }

  /** The prefix every ref of this session starts with; the server refuses others (§8.2). */
  get refPrefix(): string {
    return `sessions/${this.sessionId}/attachments/`;
  }

  /**
   * Uploads `encrypted` and resolves with the server's `ref`. Refuses a blob over the server's
   * 10 MiB limit with `media.too_large` before any request.
   *
   * Errors: `media.too_large`, `media.upload_rejected` (a 4xx other than 429; not retried),
   * `media.upload_failed` (still failing after the retries), `media.aborted`.
   */
  async upload(encrypted: Uint8Array, options: UploadOptions): Promise<UploadResult> {
    return this.uploadPayload(encrypted, options);
  }

  /**
   * {@link HappyUploader.upload} of a blob encrypted piece by piece as the request body is
   * pulled: memory stays O(chunk) (docs/media.md, "Memory"). Same errors.
   */
  async uploadSealed(blob: SealedBlob, options: UploadOptions): Promise<UploadResult> {
    return this.uploadPayload(blob, options);
  }

  private async uploadPayload(
    encrypted: Uint8Array | SealedBlob,
    options: UploadOptions,
  ): Promise<UploadResult> {
    if (encrypted.length > MAX_ENCRYPTED_ATTACHMENT_BYTES) {
      throw mediaError(
        'media.too_large',
        `The encrypted attachment is ${encrypted.length} bytes; the server takes at most ${MAX_ENCRYPTED_ATTACHMENT_BYTES}`,
        'Compress or downscale it, or split it into smaller files',
        { details: { size: encrypted.length, maxBytes: MAX_ENCRYPTED_ATTACHMENT_BYTES } },
      );
    }
    const { signal } = options;
    const requestPath = `/v1/sessions/${this.sessionId}/attachments/request-upload`;
    const answer = await withRetries(
      () =>
        this.http.request<unknown>('POST', requestPath, {
          filename: options.filename,
          size: encrypted.length,
        }),
      { ...this.retry, signal, logger: this.logger, what: 'request-upload', giveUp: uploadError },
    );
    const ticket = parseTicket(UploadTicketSchema, answer, 'request-upload');
    await withRetries(() => this.send(ticket, encrypted, options), {
      ...this.retry,
      signal,
      logger: this.logger,
      what: `${ticket.method} upload`,
      giveUp: uploadError,
    });
    return { ref: ticket.ref };
  }

  /**
   * Downloads the encrypted blob stored under `ref`, a ref of this session.
   *
   * Errors: `media.bad_ref` (not a ref of this session), `media.download_failed`, `media.aborted`.
   */
  async download(ref: string, options: DownloadOptions = {}): Promise<Uint8Array> {
    if (!ref.startsWith(this.refPrefix)) {
      throw mediaError(
        'media.bad_ref',
        `The ref ${ref} does not belong to session ${this.sessionId}`,
        'Download an attachment through the session whose stream references it',
        { details: { ref, sessionId: this.sessionId } },
      );
    }
    const { signal } = options;
    const retry = { ...this.retry, signal, logger: this.logger, giveUp: downloadError };
    const answer = await withRetries(
      () =>
        this.http.request<unknown>('POST', `/v1/sessions/${this.sessionId}/attachments/request-download`, {
          ref,
        }),
      { ...retry, what: 'request-download' },
    );
    const { downloadUrl } = parseTicket(DownloadTicketSchema, answer, 'request-download');
    const url = reachableUrl(downloadUrl, this.http.serverUrl, this.ownPath);
    return withRetries(() => this.fetchBlob(url, signal), { ...retry, what: 'download' });
  }

  private async send(
    ticket: UploadTicket,
    encrypted: Uint8Array | SealedBlob,
    options: UploadOptions,
  ): Promise<void> {
    const url = reachableUrl(ticket.uploadUrl, this.http.serverUrl, this.ownPath);
    const headers: Record<string, string> = {};
    let envelope: { prefix?: Uint8Array; suffix?: Uint8Array } = {};
    if (ticket.method === 'POST') {
      const multipart = multipartEnvelope(
        ticket.formFields ?? {},
        `happy-session-${randomBytes(16).toString('hex')}`,
      );
      envelope = { prefix: multipart.prefix, suffix: multipart.suffix };
      headers['Content-Type'] = multipart.contentType;
    } else {
      headers['Content-Type'] = 'application/octet-stream';
      if (isServerUrl(url, this.http.serverUrl)) headers.Authorization = `Bearer ${this.bearer()}`;
    }
    const length = (envelope.prefix?.length ?? 0) + encrypted.length + (envelope.suffix?.length ?? 0);
    headers['Content-Length'] = String(length);
    const total = encrypted.length;
    options.onProgress?.(0, total);
    const signal = this.transferSignal(options.signal);
    if (this.fetchImpl) {
      await this.sendWithFetch(url, ticket.method, headers, encrypted, envelope, signal, options);
      return;
    }
    let answer: UploadAnswer;
    try {
      answer = await sendUpload({
        url,
        method: ticket.method,
        headers,
        ...envelope,
        payload: encrypted,
        chunkSize: this.chunkSize ?? DEFAULT_UPLOAD_CHUNK_BYTES,
        signal,
        onSent: (sent) => options.onProgress?.(sent, total),
      });
    } catch (error) {
      // A blob that cannot be read (its file changed) says so itself; anything else is the network.
      if (isSdkError(error)) throw error;
      throw httpNetworkError(error, ticket.method, withoutQuery(url), new URL(url).origin);
    }
    if (answer.status >= 200 && answer.status < 300) return;
    this.refused(ticket.method, url, answer.status, answer.text, header(answer.headers['retry-after']));
  }

  /** The upload through a program's own `fetch`: the body is a stream of fresh pieces. */
  private async sendWithFetch(
    url: string,
    method: string,
    headers: Record<string, string>,
    encrypted: Uint8Array | SealedBlob,
    envelope: { prefix?: Uint8Array; suffix?: Uint8Array },
    signal: AbortSignal,
    options: UploadOptions,
  ): Promise<void> {
    const body = streamedBody(encrypted, { ...envelope, ...this.chunks() });
    const subscription = body.progress$.subscribe((sent) => options.onProgress?.(sent, encrypted.length));
    try {
      const init = { method, headers, body: body.stream, duplex: 'half', signal } as RequestInit;
      await this.exchange(url, init);
    } finally {
      subscription.unsubscribe();
    }
  }

  private async fetchBlob(url: string, signal: AbortSignal | undefined): Promise<Uint8Array> {
    const headers: Record<string, string> = {};
    if (isServerUrl(url, this.http.serverUrl)) headers.Authorization = `Bearer ${this.bearer()}`;
    const response = await this.exchange(url, {
      method: 'GET',
      headers,
      signal: this.transferSignal(signal),
    });
    return readCapped(response, MAX_ENCRYPTED_ATTACHMENT_BYTES, url);
  }

  /** One request; a failure becomes the transport layer's error, so retries classify it alike. */
  private async exchange(url: string, init: RequestInit): Promise<Response> {
    const method = init.method ?? 'GET';
    const shown = withoutQuery(url);
    let response: Response;
    try {
      response = await (this.fetchImpl ?? fetch)(url, init);
    } catch (error) {
      if (isSdkError(error)) throw error;
      throw httpNetworkError(error, method, shown, new URL(url).origin);
    }
    if (response.ok) {
      if (method !== 'GET') await response.arrayBuffer().catch(() => undefined);
      return response;
    }
    const text = await response.text().catch(() => '');
    return this.refused(method, url, response.status, text, response.headers.get('retry-after'));
  }

  /** A transfer the server answered with an error status: the transport layer's error for it. */
  private refused(
    method: string,
    url: string,
    status: number,
    text: string,
    retryAfter: string | null,
  ): never {
    const shown = withoutQuery(url);
    this.logger.debug('attachment transfer refused', { method, url: shown, status });
    throw httpStatusError(status, parseJson(text), method, shown, retryAfter);
  }

  private bearer(): string {
    return this.token ?? this.http.bearer ?? '';
  }

  private transferSignal(signal: AbortSignal | undefined): AbortSignal {
    const timeout = AbortSignal.timeout(this.transferTimeoutMs);
    return signal ? AbortSignal.any([signal, timeout]) : timeout;
  }

  private chunks(): { chunkSize?: number } {
    return this.chunkSize === undefined ? {} : { chunkSize: this.chunkSize };
  }
}

function parseTicket<S extends z.ZodMiniType>(schema: S, answer: unknown, route: string): z.output<S> {
  const parsed = schema.safeParse(answer);
  if (parsed.success) return parsed.data;
  throw mediaError(
    route === 'request-upload' ? 'media.upload_failed' : 'media.download_failed',
    `The server's answer to ${route} is not what Happy servers send`,
    'Check that the server URL points at a Happy server or the happy-session relay',
    { details: { answer, issues: parsed.error.issues } },
  );
}

/** Reads a body of at most `limit` bytes; a server sending more is not sending an attachment. */
async function readCapped(response: Response, limit: number, url: string): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    if (response.body === null) return new Uint8Array(0);
    const reader = response.body.getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      const chunk = next.value;
      total += chunk.length;
      if (total > limit) {
        await reader.cancel().catch(() => undefined);
        throw mediaError(
          'media.download_failed',
          `The download is larger than the ${limit}-byte attachment limit`,
          'The server sent something that is not an attachment; check the server URL',
          { details: { url: withoutQuery(url), limit } },
        );
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (isSdkError(error, 'media.download_failed')) throw error;
    // The connection died mid-body: a network failure, retried like one.
    throw httpNetworkError(error, 'GET', withoutQuery(url), new URL(url).origin);
  }
  return Buffer.concat(chunks, total);
}

function uploadError(failure: RetryFailure): MediaError {
  const cause = failure.error as SdkError | undefined;
  const status = cause?.details?.status;
  if (failure.exhausted) {
    return mediaError(
      'media.upload_failed',
      `The upload failed after ${failure.attempts} tries: ${cause?.message ?? String(failure.error)}`,
      'Check the network and the server; nothing was appended, so attach again to retry',
      { cause, details: { attempts: failure.attempts, ...(status !== undefined ? { status } : {}) } },
    );
  }
  if (cause?.code?.startsWith('media.')) return cause as MediaError;
  return mediaError(
    'media.upload_rejected',
    `The server refused the upload: ${cause?.message ?? String(failure.error)}`,
    rejectionHint(status),
    {
      cause,
      details: { ...(status !== undefined ? { status } : {}), body: cause?.details?.body },
    },
  );
}

function downloadError(failure: RetryFailure): MediaError {
  const cause = failure.error as SdkError | undefined;
  if (cause?.code?.startsWith('media.')) return cause as MediaError;
  const status = cause?.details?.status;
  return mediaError(
    'media.download_failed',
    `The download failed${failure.exhausted ? ` after ${failure.attempts} tries` : ''}: ${cause?.message ?? String(failure.error)}`,
    status === 404 || status === 400
      ? 'The attachment is not on the server (attachments are deleted with their session)'
      : 'Check the network and the server, then try again',
    { cause, details: { attempts: failure.attempts, ...(status !== undefined ? { status } : {}) } },
  );
}

function rejectionHint(status: unknown): string {
  if (status === 413) return "The encrypted file is over the server's 10 MB limit; send a smaller file";
  if (status === 401 || status === 403) return `The token was refused; ${REFUSED_TOKEN_HINT}`;
  if (status === 404) return 'The session is not on this server; check the server URL and the session id';
  return "See details.body for the server's reason; the upload was not retried";
}

function header(value: string | string[] | undefined): string | null {
  return (Array.isArray(value) ? value[0] : value) ?? null;
}

function parseJson(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
