import { MAX_ATTACHMENT_BYTES } from 'happy-session/internal';
import type { RelayLimits } from './types.js';

/** {@link RelayLimits} with every default filled in (docs/relay.md, "Limits"). */
export type ResolvedLimits = Required<RelayLimits> & {
  /** Bytes of every other JSON body the relay takes. */
  readonly smallJsonBytes: number;
  /** Bytes of a session's create body (encrypted metadata). */
  readonly sessionJsonBytes: number;
  /** Bytes of one attachment (the real server's 10 MB). */
  readonly attachmentBytes: number;
};

/** The limits of a relay, defaults filled in. */
export function resolveLimits(limits: RelayLimits = {}): ResolvedLimits {
  return {
    messageBatchBytes: limits.messageBatchBytes ?? 32 * 1024 * 1024,
    messagesPerMinute: limits.messagesPerMinute ?? 120_000,
    attachmentQuotaBytes: limits.attachmentQuotaBytes ?? 1024 * 1024 * 1024,
    socketsPerAccount: limits.socketsPerAccount ?? 128,
    rpcCallsInFlight: limits.rpcCallsInFlight ?? 128,
    smallJsonBytes: 64 * 1024,
    sessionJsonBytes: 1024 * 1024,
    attachmentBytes: MAX_ATTACHMENT_BYTES,
  };
}

/**
 * A token bucket per account: holds `perMinute` tokens and refills at that rate, so a burst of a
 * minute's worth passes and a steady stream above the rate does not.
 */
export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly perMinute: number) {}

  /** Takes `count` tokens of `key`; false (and nothing taken) when there are not enough. */
  take(key: string, count = 1, now = Date.now()): boolean {
    const bucket = this.buckets.get(key) ?? { tokens: this.perMinute, at: now };
    bucket.tokens = Math.min(this.perMinute, bucket.tokens + ((now - bucket.at) * this.perMinute) / 60_000);
    bucket.at = now;
    this.buckets.set(key, bucket);
    if (bucket.tokens < count) return false;
    bucket.tokens -= count;
    return true;
  }
}

/** How many of something each account holds at once (sockets, calls in flight), up to a maximum. */
export class ConcurrencyLimiter {
  private readonly counts = new Map<string, number>();

  constructor(private readonly max: number) {}

  /** Takes one place of `key`; false when all are taken. Give it back with {@link release}. */
  acquire(key: string): boolean {
    const count = this.counts.get(key) ?? 0;
    if (count >= this.max) return false;
    this.counts.set(key, count + 1);
    return true;
  }

  /** Gives back a place taken with {@link acquire}. */
  release(key: string): void {
    const count = (this.counts.get(key) ?? 0) - 1;
    if (count <= 0) this.counts.delete(key);
    else this.counts.set(key, count);
  }
}
