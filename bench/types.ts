/**
 * One measurement of a benchmark: a value next to a baseline measured in the same run, so the
 * ratio means something on any machine.
 */
export interface BenchResult {
  /** Stable identifier, e.g. `media.prepare.photo-12mp`. */
  name: string;
  value: number;
  baseline: number;
  /** `value / baseline`. */
  ratio: number;
  /** Unit of `value` and `baseline`, e.g. `ms`, `MB`. */
  unit: string;
  /** The goal, in words, e.g. `ratio <= 1.3`. */
  target?: string;
  note?: string;
}
