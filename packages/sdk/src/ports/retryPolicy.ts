import { isSdkError } from '../errors.js';
import { pause } from './waits.js';

/**
 * Codes that say the request may succeed if sent again: no answer, a time-out (408 included), a
 * 5xx (a full disk's 507 included), a 429 (docs/transport.md, "Retries").
 */
const RETRYABLE: ReadonlySet<string> = new Set([
  'transport.network',
  'transport.timeout',
  'transport.server_error',
  'transport.storage_full',
  'transport.rate_limited',
]);

/** The longest `Retry-After` honoured; a server asking for more is waited on this long. */
const MAX_RETRY_AFTER_MS = 60_000;

/**
 * True for failures worth retrying with the same request: network errors, time-outs and 408, 429
 * and 5xx. Any other 4xx is the server saying no, and retrying would only repeat it
 * (docs/transport.md, "Retries").
 */
export function isRetryableTransportError(error: unknown): boolean {
  return isSdkError(error) && RETRYABLE.has(error.code);
}

/** The wait a 429 or 503 asked for with `Retry-After` (in `details.retryAfterMs`), if any. */
export function retryAfterOf(error: unknown): number | undefined {
  if (!isSdkError(error)) return undefined;
  const ms = error.details?.retryAfterMs;
  return typeof ms === 'number' && Number.isFinite(ms) && ms >= 0
    ? Math.min(ms, MAX_RETRY_AFTER_MS)
    : undefined;
}

/** Tuning of a {@link RetryPolicy}. */
export interface RetryPolicyOptions {
  /** Wait before the second try; each later wait doubles. Default 250 ms. */
  readonly baseDelayMs?: number;
  /** Longest wait between two tries; default 5 s. */
  readonly maxDelayMs?: number;
  /** Tries in all, the first included; default unlimited (a deadline or a signal ends them). */
  readonly maxAttempts?: number;
  /** Source of the jitter, in [0, 1); default `Math.random`. */
  readonly random?: () => number;
}

/**
 * The one retry policy of the SDK (docs/architecture.md, "Delivery"): which failures are tried
 * again ({@link isRetryableTransportError}) and how long to wait first. The wait grows
 * exponentially from `baseDelayMs` to `maxDelayMs`, with jitter (a random half of it), so clients
 * that failed together do not come back together; a `Retry-After` the server sent is waited at
 * least. The outbox, the record feed, versioned state writes, uploads and `connect()` all use it.
 */
export class RetryPolicy {
  readonly baseDelayMs: number;
  readonly maxDelayMs: number;
  readonly maxAttempts: number;
  private readonly random: () => number;

  constructor(options: RetryPolicyOptions = {}) {
    this.baseDelayMs = Math.max(0, options.baseDelayMs ?? 250);
    this.maxDelayMs = Math.max(this.baseDelayMs, options.maxDelayMs ?? 5_000);
    this.maxAttempts = Math.max(1, options.maxAttempts ?? Infinity);
    this.random = options.random ?? Math.random;
  }

  /** True when `error` is worth another try (whatever the attempt count). */
  retryable(error: unknown): boolean {
    return isRetryableTransportError(error);
  }

  /**
   * How long to wait after try number `attempt` (1 for the first) failed with `error` before the
   * next one, or `undefined` when there must be no next try: the error is final, or the tries ran out.
   */
  delayAfter(error: unknown, attempt: number): number | undefined {
    if (!this.retryable(error) || attempt >= this.maxAttempts) return undefined;
    const ceiling = Math.min(this.maxDelayMs, this.baseDelayMs * 2 ** Math.max(0, attempt - 1));
    const backoff = ceiling / 2 + (this.random() * ceiling) / 2;
    return Math.max(backoff, retryAfterOf(error) ?? 0);
  }
}

/** What {@link retrying} reports before each wait. */
export interface RetryNotice {
  readonly attempt: number;
  readonly delayMs: number;
  readonly error: unknown;
}

/** Options of {@link retrying}. */
export interface RetryingOptions {
  readonly policy: RetryPolicy;
  /** Stops the retries: the wait ends and the last error is thrown. */
  readonly signal?: AbortSignal;
  /** No try starts after this time (unix ms): the last wait ends there, then the last error is thrown. */
  readonly deadline?: number;
  /** Called before each wait (to log it, say). */
  readonly onRetry?: (notice: RetryNotice) => void;
}

/**
 * Runs `operation` until it succeeds, or fails with an error the policy does not retry, or the
 * tries, the deadline or the signal run out; then throws the last error. The retry loop of
 * everything in the SDK that retries with promises.
 */
export async function retrying<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryingOptions,
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      const delay = options.policy.delayAfter(error, attempt);
      if (delay === undefined || options.signal?.aborted) throw error;
      // Near the deadline the wait shortens, so the last try starts at the deadline at the latest.
      const wait = options.deadline === undefined ? delay : Math.min(delay, options.deadline - Date.now());
      if (wait <= 0) throw error;
      options.onRetry?.({ attempt, delayMs: Math.round(wait), error });
      if (!(await pause(wait, options.signal))) throw error;
    }
  }
}
