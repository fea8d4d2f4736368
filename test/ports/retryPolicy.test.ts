import { describe, expect, it } from 'vitest';
import { SdkError } from 'happy-session';
import { RetryPolicy, isRetryableTransportError } from 'happy-session/ports';
import { retrying } from 'happy-session/internal';
import { httpStatusError, parseRetryAfter } from '../../packages/sdk/src/transport/httpErrors.js';

const answered = (status: number, retryAfter?: string): SdkError =>
  httpStatusError(status, { error: 'x' }, 'POST', '/v3/sessions/s/messages', retryAfter);

describe('the one retry policy', () => {
  it.each([408, 429, 500, 502, 503, 504])('retries HTTP %i', (status) => {
    expect(isRetryableTransportError(answered(status))).toBe(true);
  });

  it.each([400, 401, 403, 404, 409, 413, 422])('does not retry HTTP %i', (status) => {
    expect(isRetryableTransportError(answered(status))).toBe(false);
    expect(new RetryPolicy().delayAfter(answered(status), 1)).toBeUndefined();
  });

  it('retries network failures and time-outs, not other errors', () => {
    expect(isRetryableTransportError(new SdkError('transport.network', 'reset'))).toBe(true);
    expect(isRetryableTransportError(new SdkError('transport.timeout', 'slow'))).toBe(true);
    expect(isRetryableTransportError(new SdkError('transport.bad_response', 'html'))).toBe(false);
    expect(isRetryableTransportError(new Error('plain'))).toBe(false);
  });

  it('429 is transport.rate_limited and carries the Retry-After it asked for', () => {
    const error = answered(429, '3');
    expect(error.code).toBe('transport.rate_limited');
    expect(error.details?.retryAfterMs).toBe(3000);
    expect(parseRetryAfter(new Date(Date.now() + 5000).toUTCString())).toBeGreaterThan(3000);
    expect(parseRetryAfter('soon')).toBeUndefined();
  });

  it('waits exponentially longer, with jitter in the upper half, up to the ceiling', () => {
    const low = new RetryPolicy({ baseDelayMs: 100, maxDelayMs: 1000, random: () => 0 });
    const high = new RetryPolicy({ baseDelayMs: 100, maxDelayMs: 1000, random: () => 0.999999 });
    const error = answered(503);
    expect([1, 2, 3, 4, 5, 6].map((n) => low.delayAfter(error, n))).toEqual([50, 100, 200, 400, 500, 500]);
    expect([1, 2, 3, 4, 5, 6].map((n) => Math.round(high.delayAfter(error, n)!))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });

  it('waits at least what Retry-After asked', () => {
    const policy = new RetryPolicy({ baseDelayMs: 100, random: () => 0 });
    expect(policy.delayAfter(answered(429, '2'), 1)).toBe(2000);
    expect(policy.delayAfter(answered(503, '1'), 1)).toBe(1000);
  });

  it('stops after maxAttempts tries', () => {
    const policy = new RetryPolicy({ maxAttempts: 3 });
    expect(policy.delayAfter(answered(500), 2)).toBeDefined();
    expect(policy.delayAfter(answered(500), 3)).toBeUndefined();
  });

  it('retrying() runs until success, and throws a final error at once', async () => {
    const policy = new RetryPolicy({ baseDelayMs: 1 });
    let calls = 0;
    await expect(
      retrying(
        async () => {
          calls++;
          if (calls < 3) throw answered(502);
          return 'ok';
        },
        { policy },
      ),
    ).resolves.toBe('ok');
    expect(calls).toBe(3);

    calls = 0;
    const refused = answered(400);
    await expect(
      retrying(
        async () => {
          calls++;
          throw refused;
        },
        { policy },
      ),
    ).rejects.toBe(refused);
    expect(calls).toBe(1);
  });

  it('retrying() starts no try after the deadline', async () => {
    const policy = new RetryPolicy({ baseDelayMs: 40, maxDelayMs: 40, random: () => 1 });
    const starts: number[] = [];
    const deadline = Date.now() + 100;
    await expect(
      retrying(
        async () => {
          starts.push(Date.now());
          throw answered(503);
        },
        { policy, deadline },
      ),
    ).rejects.toMatchObject({ code: 'transport.server_error' });
    expect(starts.length).toBeGreaterThanOrEqual(2);
    for (const at of starts) expect(at).toBeLessThanOrEqual(deadline + 250);
  });
});
