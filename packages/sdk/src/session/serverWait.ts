import { SdkError, isSdkError } from '../errors.js';
import type { Logger } from '../logger.js';
import { RetryPolicy, retrying } from '../ports/retryPolicy.js';

/** How long `connect()` waits for a server that does not answer yet, by default (docs/transport.md, "Waiting for the server"). */
export const DEFAULT_SERVER_WAIT_MS = 5_000;

/** Tries come quickly at first (a server starting), then every 2 s at most. */
const POLICY = new RetryPolicy({ baseDelayMs: 200, maxDelayMs: 2_000 });

/**
 * The setup steps of one `connect()` against a server that may still be starting: each step is
 * tried again, with the SDK's retry policy, while it fails with a retryable error and the shared
 * deadline has not passed; every try is logged. A server that never answered ends it with
 * `transport.network` and a hint that says what happened and what to do.
 */
export class ServerWait {
  private readonly deadline: number;
  private tries = 0;

  constructor(
    private readonly waitMs: number,
    private readonly logger: Logger,
  ) {
    this.deadline = Date.now() + Math.max(0, waitMs);
  }

  /** Runs `step`, trying it again while the server does not answer and time is left. */
  async run<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await retrying(
        () => {
          this.tries++;
          return step();
        },
        {
          policy: POLICY,
          deadline: this.deadline,
          onRetry: ({ attempt, delayMs, error }) =>
            this.logger.warn('the server does not answer yet; trying again', {
              attempt,
              delayMs,
              error: error instanceof Error ? error.message : String(error),
            }),
        },
      );
    } catch (error) {
      throw this.explain(error);
    }
  }

  private explain(error: unknown): unknown {
    if (!isSdkError(error, 'transport.network') && !isSdkError(error, 'transport.timeout')) return error;
    const url = typeof error.details?.url === 'string' ? error.details.url : 'the server';
    const seconds = Math.round(this.waitMs / 100) / 10;
    return new SdkError(
      'transport.network',
      `Nothing answered at ${url}: ${this.tries} ${this.tries === 1 ? 'try' : 'tries'} in ${seconds} s.`,
      {
        hint: 'start the server (`happy-session serve` runs the embedded relay), or point HAPPY_SERVER_URL or connect({ server }) at a running one; connect({ serverWaitMs }) waits longer',
        cause: error,
        details: { ...error.details, tries: this.tries, waitMs: this.waitMs },
      },
    );
  }
}
