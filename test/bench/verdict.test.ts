import { describe, expect, it } from 'vitest';
import { verdict } from '../../bench/lib/report.js';
import type { BenchResult } from '../../bench/types.js';

const result = (target: string | undefined, value: number, ratio: number): BenchResult => ({
  name: 'x',
  value,
  baseline: 1,
  ratio,
  unit: 'MB',
  ...(target !== undefined ? { target } : {}),
});

describe('bench verdict', () => {
  it('judges one clause of ratio or value', () => {
    expect(verdict(result('ratio <= 1.3', 5, 1.2))).toBe('pass');
    expect(verdict(result('ratio <= 1.3', 5, 1.4))).toBe('fail');
    expect(verdict(result('value <= 50', 51, 0.1))).toBe('fail');
    expect(verdict(result('ratio >= 0.9', 5, 0.95))).toBe('pass');
  });

  it('holds every clause of a compound target', () => {
    expect(verdict(result('ratio <= 1.5, value < 128', 32, 0.79))).toBe('pass');
    expect(verdict(result('ratio <= 1.5, value < 128', 130, 0.79))).toBe('fail');
    expect(verdict(result('ratio <= 1.5, value < 128', 32, 1.6))).toBe('fail');
  });

  it('fails a target it cannot read, and gives "-" only without a target', () => {
    expect(verdict(result('ratio about 1', 1, 1))).toBe('fail');
    expect(verdict(result('ratio <= 1.5, soon', 1, 1))).toBe('fail');
    expect(verdict(result(undefined, 1, 1))).toBe('-');
    expect(verdict(result('ratio <= 1', 1, Number.NaN))).toBe('fail');
  });
});
