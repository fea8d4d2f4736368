import type { BenchResult } from '../types.js';

/** A result as the runner reports it: the benchmark's figure plus the verdict on its target. */
export interface ReportedResult extends BenchResult {
  /** The file it came from. */
  readonly file: string;
  /** `pass` / `fail` against `target`; `-` when there is no target it can read. */
  readonly verdict: 'pass' | 'fail' | '-';
}

/** A benchmark file that did not produce results. */
export interface Crash {
  readonly file: string;
  readonly error: string;
}

/** What `bench/results.json` holds. */
export interface BenchReport {
  readonly date: string;
  readonly machine: {
    readonly cpus: number;
    readonly cpuModel: string;
    readonly totalMemoryMB: number;
    readonly node: string;
    readonly platform: string;
    readonly arch: string;
    readonly loadAverage: readonly number[];
  };
  readonly server: string;
  readonly seconds: number;
  readonly results: readonly ReportedResult[];
  readonly crashed: readonly Crash[];
}

const CLAUSE = /^\s*(ratio|value)\s*(<=|>=|<|>)\s*(-?\d+(?:\.\d+)?)\s*$/;

/**
 * Reads a target such as `ratio <= 1.3`, `value <= 50` or several joined by commas
 * (`ratio <= 1.5, value < 128`: every one must hold) and checks the result against it. A result
 * without a target is `-`; a target that does not read as such clauses is a `fail`, never a
 * silent `-`. Targets are reported, never asserted: a miss is a `fail` in the table, not an exit
 * code.
 */
export function verdict(result: BenchResult): ReportedResult['verdict'] {
  if (!result.target) return '-';
  const clauses = result.target.split(',').map((clause) => CLAUSE.exec(clause));
  return clauses.every((match) => match !== null && holds(result, match)) ? 'pass' : 'fail';
}

function holds(result: BenchResult, match: RegExpExecArray): boolean {
  const actual = match[1] === 'ratio' ? result.ratio : result.value;
  if (typeof actual !== 'number' || !Number.isFinite(actual)) return false;
  const bound = Number(match[3]);
  switch (match[2]) {
    case '<=':
      return actual <= bound;
    case '>=':
      return actual >= bound;
    case '<':
      return actual < bound;
    default:
      return actual > bound;
  }
}

const COLUMNS = ['name', 'value', 'baseline', 'ratio', 'target', 'result', 'note'] as const;

function cells(r: ReportedResult): string[] {
  return [
    r.name,
    `${r.value} ${r.unit}`,
    `${r.baseline} ${r.unit}`,
    String(r.ratio),
    r.target ?? '',
    r.verdict,
    r.note ?? '',
  ];
}

/** The results as an aligned plain-text table (the note column last, unpadded). */
export function textTable(results: readonly ReportedResult[]): string {
  const rows = [[...COLUMNS] as string[], ...results.map(cells)];
  const widths = COLUMNS.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
  return rows
    .map((row) =>
      row.map((cell, c) => (c === COLUMNS.length - 1 ? cell : cell.padEnd(widths[c]!))).join('  '),
    )
    .join('\n');
}

/** The results as a Markdown table, for `docs/performance.md`. */
export function markdownTable(results: readonly ReportedResult[]): string {
  const escape = (s: string): string => s.replace(/\|/g, '\\|');
  const lines = [`| ${COLUMNS.join(' | ')} |`, `| ${COLUMNS.map(() => '---').join(' | ')} |`];
  for (const r of results) lines.push(`| ${cells(r).map(escape).join(' | ')} |`);
  return lines.join('\n');
}
