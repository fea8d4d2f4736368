import { isSdkError } from '../errors.js';
import { isRetryableTransportError } from '../ports/retryPolicy.js';
import type { Logger } from '../logger.js';
import { abortedError } from './mediaError.js';

/** How an upload or download step is retried. */
export interface RetryOptions {
  /** Tries in all, the first included; default 5. */
  readonly attempts?: number;
  /** Wait before the second try; each later wait doubles. Default 500 ms. */
  readonly baseDelayMs?: number;
  /** Longest wait between tries; default 8 s. */
  readonly maxDelayMs?: number;
}

const DEFAULTS = { attempts: 5, baseDelayMs: 500, maxDelayMs: 8_000 } as const;

/**
 * True for a failure worth another try: what the transport would retry (no answer, a 5xx), or 429
 * (the server's upload rate limit, docs/wire.md §8.1). Any other 4xx will be refused again, so it
 * is final.
 */
export function isTransient(error: unknown): boolean {
  if (isRetryableTransportError(error)) return true;
  return isSdkError(error) && error.details?.status === 429;
}

/** Why {@link withRetries} gave up: every try failed, or one failed for good. */
export interface RetryFailure {
  readonly error: unknown;
  readonly attempts: number;
  /** True when the last error was transient and the tries ran out. */
  readonly exhausted: boolean;
}

/**
 * Runs `operation` until it succeeds, a failure is not {@link isTransient}, or the tries run out,
 * waiting with exponential backoff and jitter in between. Throws `media.aborted` when `signal`
 * fires, otherwise the error `giveUp` makes of the last failure.
 */
export async function withRetries<T>(
  operation: (attempt: number) => Promise<T>,
  options: RetryOptions & {
    signal?: AbortSignal;
    logger?: Logger;
    what: string;
    giveUp: (failure: RetryFailure) => Error;
  },
): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? DEFAULTS.attempts);
  const base = options.baseDelayMs ?? DEFAULTS.baseDelayMs;
  const max = options.maxDelayMs ?? DEFAULTS.maxDelayMs;
  for (let attempt = 1; ; attempt++) {
    if (options.signal?.aborted) throw abortedError(options.signal);
    try {
      return await operation(attempt);
    } catch (error) {
      if (options.signal?.aborted) throw abortedError(options.signal);
      if (isSdkError(error, 'media.aborted')) throw error;
      const transient = isTransient(error);
      if (!transient || attempt >= attempts) {
        throw options.giveUp({ error, attempts: attempt, exhausted: transient });
      }
      // Full jitter: many clients failing at once do not come back in step.
      const delay = Math.random() * Math.min(max, base * 2 ** (attempt - 1));
      options.logger?.debug('media transfer failed; retrying', {
        what: options.what,
        attempt,
        delayMs: Math.round(delay),
        error: String(error),
      });
      await sleep(delay, options.signal);
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortedError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
