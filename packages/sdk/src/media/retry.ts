import { isSdkError } from '../errors.js';
import { RetryPolicy, retrying } from '../ports/retryPolicy.js';
import type { Logger } from '../logger.js';
import { abortedError } from './mediaError.js';

/** How an upload or download step is retried (the SDK's one retry policy, with these tries and waits). */
export interface RetryOptions {
  /** Tries in all, the first included; default 5. */
  readonly attempts?: number;
  /** Wait before the second try; each later wait doubles. Default 500 ms. */
  readonly baseDelayMs?: number;
  /** Longest wait between tries; default 8 s. */
  readonly maxDelayMs?: number;
}

const DEFAULTS = { attempts: 5, baseDelayMs: 500, maxDelayMs: 8_000 } as const;

/** Why {@link withRetries} gave up: every try failed, or one failed for good. */
export interface RetryFailure {
  readonly error: unknown;
  readonly attempts: number;
  /** True when the last error was retryable and the tries ran out. */
  readonly exhausted: boolean;
}

/**
 * Runs `operation` with the SDK's retry policy (`ports/retryPolicy.ts`: network failures, 408,
 * 429 after its `Retry-After`, 5xx) until it succeeds, a failure is final, or the tries run out.
 * Throws `media.aborted` when `signal` fires, otherwise the error `giveUp` makes of the last failure.
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
  const policy = new RetryPolicy({
    maxAttempts: Math.max(1, options.attempts ?? DEFAULTS.attempts),
    baseDelayMs: options.baseDelayMs ?? DEFAULTS.baseDelayMs,
    maxDelayMs: options.maxDelayMs ?? DEFAULTS.maxDelayMs,
  });
  let attempts = 0;
  try {
    return await retrying(
      (attempt) => {
        attempts = attempt;
        if (options.signal?.aborted) throw abortedError(options.signal);
        return operation(attempt);
      },
      {
        policy,
        ...(options.signal ? { signal: options.signal } : {}),
        onRetry: ({ attempt, delayMs, error }) =>
          options.logger?.debug('media transfer failed; retrying', {
            what: options.what,
            attempt,
            delayMs,
            error: String(error),
          }),
      },
    );
  } catch (error) {
    if (options.signal?.aborted) throw abortedError(options.signal);
    if (isSdkError(error, 'media.aborted')) throw error;
    throw options.giveUp({ error, attempts, exhausted: policy.retryable(error) });
  }
}
