import { describe, expect, it } from 'vitest';
import { timeoutDecision, validateTimeoutPolicy } from '../../packages/sdk/src/gate/timeouts.js';

describe('validateTimeoutPolicy', () => {
  it('has no timeout by default and denies on expiry by default', () => {
    expect(validateTimeoutPolicy()).toEqual({ ok: true, value: { onTimeout: 'deny' } });
    expect(validateTimeoutPolicy({ timeoutMs: 1000 })).toEqual({
      ok: true,
      value: { timeoutMs: 1000, onTimeout: 'deny' },
    });
    expect(validateTimeoutPolicy({ timeoutMs: 5, onTimeout: 'cancel' })).toEqual({
      ok: true,
      value: { timeoutMs: 5, onTimeout: 'cancel' },
    });
  });

  it('refuses onTimeout allow at configuration', () => {
    const result = validateTimeoutPolicy({ timeoutMs: 1000, onTimeout: 'allow' });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('permissions.unsafe_timeout_action');
      expect(result.error.hint).toBe('Use onTimeout: "deny" or "cancel"');
    }
  });

  it.each([
    [{ onTimeout: 'approve' }],
    [{ onTimeout: null }],
    [{ timeoutMs: 0 }],
    [{ timeoutMs: -1 }],
    [{ timeoutMs: 1.5 }],
    [{ timeoutMs: Number.POSITIVE_INFINITY }],
    [{ timeoutMs: 2_147_483_648 }],
    [{ timeoutMs: '1000' }],
  ])('refuses %j with permissions.invalid_timeout', (input) => {
    const result = validateTimeoutPolicy(input);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.code).toBe('permissions.invalid_timeout');
  });
});

describe('timeoutDecision', () => {
  it('denies or cancels, with source timeout, never allows', () => {
    expect(timeoutDecision({ onTimeout: 'deny' })).toEqual({
      outcome: 'deny',
      source: 'timeout',
      message: 'Permission request timed out.',
    });
    expect(timeoutDecision({ onTimeout: 'cancel' })).toEqual({
      outcome: 'cancelled',
      source: 'timeout',
      message: 'Permission request timed out.',
    });
  });
});
