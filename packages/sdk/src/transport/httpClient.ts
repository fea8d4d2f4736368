import { SdkError, isSdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { silentLogger } from '../logger.js';
import { AccountToken } from './accountToken.js';
import { nonJsonMeansNotHappy, httpNetworkError, httpStatusError, notHappyServer } from './httpErrors.js';
import { checkServerUrl } from './serverUrl.js';
import { fetchExchange, httpExchange } from './httpExchange.js';
import type { HttpExchange, HttpExchangeAnswer } from './httpExchange.js';

/** Options of a {@link HappyHttp}. */
export interface HappyHttpOptions {
  /** Server base URL without a trailing slash. */
  readonly serverUrl: string;
  /**
   * Bearer token; routes that need none (`POST /v1/auth`) work without it. An {@link AccountToken}
   * that can be renewed gets a new token from the master secret when the server answers 401, once
   * per refused token, and the request is sent again with it.
   */
  readonly token?: string | AccountToken;
  /** Per-request time-out; default 30 s. */
  readonly timeoutMs?: number;
  /** `X-Happy-Client` header (metrics only, docs/wire.md §0). */
  readonly client?: string;
  /**
   * A fetch implementation. Default: the installed exchange (`node:http` with keep-alive once
   * `happy-session/node` is loaded, the global `fetch` otherwise; docs/transport.md, "HTTP").
   */
  readonly fetch?: typeof fetch;
  readonly logger?: Logger;
}

/**
 * JSON over HTTP to a Happy server, with every failure as an `SdkError`: no answer →
 * `transport.network` / `transport.timeout`, 401 → `transport.unauthorized`, 404 →
 * `transport.not_found`, 408 → `transport.timeout`, 429 → `transport.rate_limited` (with the
 * `Retry-After` it asked for), 5xx → `transport.server_error`, other 4xx → `transport.rejected`
 * (docs/wire.md §0, docs/transport.md). It sends each request once; the callers that retry use the
 * one retry policy (`ports/retryPolicy.ts`).
 */
export class HappyHttp {
  readonly serverUrl: string;
  private readonly token: AccountToken | undefined;
  private readonly timeoutMs: number;
  private readonly client: string;
  private readonly fetchImpl: typeof fetch | undefined;
  private readonly exchange: HttpExchange | undefined;
  private readonly logger: Logger;

  constructor(options: HappyHttpOptions) {
    this.serverUrl = checkServerUrl(options.serverUrl);
    this.token = typeof options.token === 'string' ? new AccountToken(options.token) : options.token;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.client = options.client ?? 'cli-coding-session/happy-session';
    this.fetchImpl = options.fetch;
    this.exchange = options.fetch ? fetchExchange(options.fetch) : undefined;
    this.logger = options.logger ?? silentLogger;
  }

  /** A client for the same server with a (new) token. */
  withToken(token: string | AccountToken): HappyHttp {
    return new HappyHttp({
      serverUrl: this.serverUrl,
      token,
      timeoutMs: this.timeoutMs,
      client: this.client,
      ...(this.fetchImpl ? { fetch: this.fetchImpl } : {}),
      logger: this.logger,
    });
  }

  /** The token requests carry now, if any. */
  get bearer(): string | undefined {
    return this.token?.value;
  }

  /**
   * Sends one request and parses the JSON answer. A 401 with a renewable token is sent once more
   * with a token minted from the master secret (docs/transport.md, "Tokens"). `onSent` is called
   * once the request has left the process (see `HttpExchangeRequest.onSent`).
   */
  async request<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body?: unknown,
    options: { readonly onSent?: () => void } = {},
  ): Promise<T> {
    const sent = this.token?.value;
    try {
      return await this.send<T>(method, path, body, sent, options.onSent);
    } catch (error) {
      if (!isSdkError(error, 'transport.unauthorized') || !this.token?.renewable || sent === undefined)
        throw error;
      this.logger.info('the server refused the token; getting a new one from the secret', { path });
      const fresh = await this.token.after(sent);
      if (fresh === undefined) throw error;
      try {
        return await this.send<T>(method, path, body, fresh);
      } catch (second) {
        if (!isSdkError(second, 'transport.unauthorized')) throw second;
        throw new SdkError(
          'transport.unauthorized',
          `${method} ${path} was refused with a token minted from the secret just now.`,
          {
            hint: `the server at ${this.serverUrl} does not accept this account; check HAPPY_SERVER_URL, or log in again (\`happy-session login\`)`,
            cause: second,
            details: second.details,
          },
        );
      }
    }
  }

  private async send<T>(
    method: 'GET' | 'POST' | 'DELETE',
    path: string,
    body: unknown,
    token: string | undefined,
    onSent?: () => void,
  ): Promise<T> {
    const headers: Record<string, string> = { 'X-Happy-Client': this.client };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const exchange = this.exchange ?? httpExchange();
    let answer: HttpExchangeAnswer;
    try {
      answer = await exchange({
        method,
        url: `${this.serverUrl}${path}`,
        headers,
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        signal: AbortSignal.timeout(this.timeoutMs),
        ...(onSent ? { onSent } : {}),
      });
    } catch (error) {
      // No answer, or the connection died while it streamed: the request may or may not have run.
      throw httpNetworkError(error, method, path, this.serverUrl);
    }
    const parsed = parseBody(answer.text);
    if (typeof parsed === 'string' && nonJsonMeansNotHappy(answer.status)) {
      throw notHappyServer(this.serverUrl, method, path, answer.status, answer.server ?? null, parsed);
    }
    if (answer.status < 200 || answer.status > 299) {
      this.logger.debug('http request failed', { method, path, status: answer.status });
      throw httpStatusError(answer.status, parsed, method, path, answer.retryAfter);
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
