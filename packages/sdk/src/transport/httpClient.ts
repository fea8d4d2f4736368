import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { httpNetworkError, httpStatusError } from './httpErrors.js';

/** Options of a {@link HappyHttp}. */
export interface HappyHttpOptions {
  /** Server base URL without a trailing slash. */
  readonly serverUrl: string;
  /** Bearer token; routes that need none (`POST /v1/auth`) work without it. */
  readonly token?: string;
  /** Per-request time-out; default 30 s. */
  readonly timeoutMs?: number;
  /** `X-Happy-Client` header (metrics only, docs/wire.md §0). */
  readonly client?: string;
  /** A fetch implementation; default the global one. */
  readonly fetch?: typeof fetch;
  readonly logger?: Logger;
}

/**
 * JSON over HTTP to a Happy server, with every failure as an `SdkError`: no answer →
 * `transport.network` / `transport.timeout`, 401 → `transport.unauthorized`, 404 →
 * `transport.not_found`, 5xx → `transport.server_error`, other 4xx → `transport.rejected`
 * (docs/wire.md §0).
 */
export class HappyHttp {
  readonly serverUrl: string;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;
  private readonly client: string;
  private readonly fetchImpl: typeof fetch;
  private readonly logger: Logger;

  constructor(options: HappyHttpOptions) {
    this.serverUrl = options.serverUrl.replace(/\/+$/, '');
    this.token = options.token;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.client = options.client ?? 'cli-coding-session/happy-session';
    this.fetchImpl = options.fetch ?? fetch;
    this.logger = options.logger ?? silentLogger;
  }

  /** A client for the same server with a (new) token. */
  withToken(token: string): HappyHttp {
    return new HappyHttp({
      serverUrl: this.serverUrl,
      token,
      timeoutMs: this.timeoutMs,
      client: this.client,
      fetch: this.fetchImpl,
      logger: this.logger,
    });
  }

  /** Sends one request and parses the JSON answer. */
  async request<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const url = `${this.serverUrl}${path}`;
    const headers: Record<string, string> = { 'X-Happy-Client': this.client };
    if (this.token) headers.Authorization = `Bearer ${this.token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw httpNetworkError(error, method, path, this.serverUrl);
    }
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      // The connection died while the body was streaming: the request may or may not have run.
      throw httpNetworkError(error, method, path, this.serverUrl);
    }
    const parsed = parseBody(text);
    if (!response.ok) {
      this.logger.debug('http request failed', { method, path, status: response.status });
      throw httpStatusError(response.status, parsed, method, path);
    }
    return parsed as T;
  }
}

function parseBody(text: string): unknown {
  if (text === '') return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
