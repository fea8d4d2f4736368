import { describe, expect, it } from 'vitest';
import { until } from './until.js';

describe('until', () => {
  it('resolves with the first truthy value of the check', async () => {
    let calls = 0;
    await expect(until(() => (++calls >= 3 ? `after ${calls}` : undefined), { intervalMs: 0 })).resolves.toBe(
      'after 3',
    );
  });

  it('fails, saying what it waited for, when the check never holds', async () => {
    await expect(
      until(() => false, { timeoutMs: 0, intervalMs: 0, what: () => 'the answer' }),
    ).rejects.toThrow('the answer did not hold within 0 ms');
  });
});
