/** One request as {@link HappyHttp} sends it: JSON text over HTTP to a Happy server. */
export interface HttpExchangeRequest {
  readonly method: 'GET' | 'POST' | 'DELETE';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** The body, already serialised; absent for a request without one. */
  readonly body?: string;
  /** Gives up on the request (a time-out, say): the exchange rejects with an `AbortError`. */
  readonly signal: AbortSignal;
  /**
   * Called once when the request's bytes are written to the connection, before the answer; an
   * exchange that cannot tell calls it when it has handed the request to the platform. See
   * `AppendOptions.onSent` (docs/performance.md, "Write throughput").
   */
  readonly onSent?: () => void;
}

/** The server's answer, read to the end. */
export interface HttpExchangeAnswer {
  readonly status: number;
  /** The `Retry-After` header, or null. */
  readonly retryAfter: string | null;
  /** The `Server` header, or null: what answered, for an error that says it is not a Happy server. */
  readonly server?: string | null;
  readonly text: string;
}

/**
 * Sends one request and reads the whole answer. Rejects when no complete answer arrived (refused,
 * reset, aborted); a non-2xx answer resolves like any other. {@link HappyHttp} turns both into
 * `SdkError`s (docs/transport.md, "HTTP").
 */
export type HttpExchange = (request: HttpExchangeRequest) => Promise<HttpExchangeAnswer>;

/**
 * An exchange over `fetchImpl` (the browser's, or one a program passes as `fetch`). `fetch` does
 * not tell when the bytes have left, so `onSent` comes as soon as the request is handed to it.
 */
export function fetchExchange(fetchImpl: typeof fetch): HttpExchange {
  return async (request) => {
    const pending = fetchImpl(request.url, {
      method: request.method,
      headers: request.headers,
      ...(request.body !== undefined ? { body: request.body } : {}),
      signal: request.signal,
    });
    request.onSent?.();
    const response = await pending;
    return {
      status: response.status,
      retryAfter: response.headers.get('retry-after'),
      server: response.headers.get('server'),
      text: await response.text(),
    };
  };
}

/** The global `fetch`, looked up at each request (so a program or test that replaces it is followed). */
const globalFetchExchange = fetchExchange((input, init) => fetch(input, init));

let current: HttpExchange = globalFetchExchange;

/**
 * Makes `exchange` what every {@link HappyHttp} without its own `fetch` sends requests with, in this
 * JavaScript realm. `happy-session/node` installs `nodeHttpExchange` (`node:http` with keep-alive)
 * when it loads; browsers keep the global `fetch`.
 *
 * @see docs/transport.md, "HTTP"
 */
export function useHttpExchange(exchange: HttpExchange): void {
  current = exchange;
}

/** The exchange requests go through now (see {@link useHttpExchange}). */
export function httpExchange(): HttpExchange {
  return current;
}

/** True while nothing replaced the global-`fetch` exchange. */
export function isDefaultHttpExchange(): boolean {
  return current === globalFetchExchange;
}
