/**
 * What the policy costs on hostile command lines (docs/permissions-policy.md, "Every check is
 * linear and bounded"): one `evaluatePolicy` on an adversarial Bash line of many shapes, against
 * one `evaluatePolicy` of `git status` under the same allow rules, measured in the same run,
 * interleaved.
 *
 * Shapes: runs of spaces (`git status` + blanks + `x`), of `[`, of quotes, of `$(`, of nested
 * `${`, of backslashes, of NULs, of Unicode spaces, of `;`, of escaped blanks, one long word, and
 * nested `bash -c` strings. Each sample is one judgement: under five allow rules (default mode),
 * under two deny rules in `bypassPermissions`, or `ruleForCall` (the allow-always grant) — the
 * cases of issue 23, item 8.
 *
 * - `policy.adversarial-line.p99`: lines of 1 MiB. Target: value <= 50 ms.
 * - `policy.adversarial-line-at-cap.p99`: the same shapes just under the grammar's 16 KiB cap and
 *   just under tree-sitter's 1 KiB cap, where those readers do run. Target: value <= 50 ms.
 *
 * Run directly: `npx tsx bench/policyLines.bench.ts`.
 */
import { MAX_GRAMMAR_LINE_LENGTH } from '../packages/sdk/src/policy/bashGrammar.js';
import {
  compileRules,
  evaluatePolicy,
  loadShellParser,
  type PolicyConfig,
} from '../packages/sdk/src/permissions.js';
import { MAX_SHELL_COMMAND_LENGTH } from '../packages/sdk/src/policy/shell.js';
import { ruleForCall } from '../packages/sdk/src/policy/sessionRules.js';
import { runIfMain } from './lib/main.js';
import { median, percentile, round } from './lib/stats.js';
import type { BenchResult } from './types.js';

const ROUNDS = Number(process.env.BENCH_POLICY_LINE_ROUNDS ?? 5);
const BASELINE_PER_ROUND = 2_000;
const MIB = 1024 * 1024;

/** Adversarial lines of about `length` characters. */
function shapes(length: number): Array<[string, string]> {
  const fill = (unit: string, head = '', tail = ''): string =>
    head + unit.repeat(Math.max(0, Math.floor((length - head.length - tail.length) / unit.length))) + tail;
  return [
    ['spaces', fill(' ', 'git status', 'x')],
    ['tabs and newlines', fill(' \t\n', 'git status', 'x')],
    ['brackets', fill('[', 'ls ')],
    ['bracket pairs', fill('[a]', 'ls ')],
    ['double quotes', fill('"a" ', 'git status ')],
    ['unterminated quote', fill('a', 'git status "')],
    ['single quotes', fill("'a'", 'echo ')],
    ['command substitutions', fill('$(', 'echo ')],
    ['nested parameter expansions', fill('${', 'echo ')],
    ['backslashes', fill('\\', 'echo ')],
    ['escaped blanks', fill('\\ ', 'git status ')],
    ['NULs', fill('\0', 'git status ')],
    ['Unicode spaces', fill('\u3000\u00a0', 'git status ')],
    ['bidi marks', fill('\u202e', 'git status ')],
    ['semicolons', fill('a;', 'git status;')],
    ['pipes', fill('a|', 'ls|')],
    ['long word', fill('a', 'git status ')],
    ['braces', fill('{a,', 'echo ')],
    ['ANSI-C escapes', fill("$'\\x41\\101'", 'echo ')],
    ['assignments', fill('A=1 ', '', 'rm x')],
    ['redirections', fill('2>&1 ', 'ls ')],
    ['nested bash -c', fill("bash -c '", '', 'rm x')],
    ['comment', fill('#', 'git status ')],
  ];
}

/** Runs the benchmark and returns its results. */
export default async function main(): Promise<BenchResult[]> {
  const shell = await loadShellParser();
  const configs = [
    config(shell, 'default', {
      allow: [
        'Bash(git status:*)',
        'Bash(ls:*)',
        'Bash(echo:*)',
        'Bash(npm test)',
        'Bash(./scripts/test.sh:*)',
      ],
    }),
    config(shell, 'bypassPermissions', { deny: ['Bash(rm:*)', 'Bash(curl:*)'] }),
  ];
  /** The three ways a line is judged; each sample times one of them once. */
  const judges: Array<(command: string) => unknown> = [
    ...configs.map((c) => (command: string) => evaluatePolicy(c, { toolName: 'Bash', args: { command } })),
    (command: string) => ruleForCall('Bash', { command }),
  ];
  const judgeOnce = (command: string): void => {
    for (const judge of judges) judge(command);
  };
  // Warm-up: the grammar, tree-sitter and the rule caches.
  for (let i = 0; i < 200; i++) judgeOnce('git status');
  for (const [, line] of shapes(64 * 1024)) judgeOnce(line);

  const baseline: number[] = [];
  const big: number[] = [];
  const atCap: number[] = [];
  const slowest = { big: ['', 0] as [string, number], atCap: ['', 0] as [string, number] };
  const bigLines = shapes(MIB);
  // Just under each cap, where that reader does run: the grammar's and tree-sitter's.
  const capLines = [...shapes(MAX_GRAMMAR_LINE_LENGTH - 16), ...shapes(MAX_SHELL_COMMAND_LENGTH - 16)];
  for (let round = 0; round < ROUNDS; round++) {
    const start = performance.now();
    for (let i = 0; i < BASELINE_PER_ROUND; i++) judges[0]!('git status');
    baseline.push((performance.now() - start) / BASELINE_PER_ROUND);
    for (const [name, line] of bigLines) {
      for (const judge of judges) {
        const ms = timed(() => judge(line));
        big.push(ms);
        if (ms > slowest.big[1]) slowest.big = [name, ms];
      }
    }
    for (const [name, line] of capLines) {
      for (const judge of judges) {
        const ms = timed(() => judge(line));
        atCap.push(ms);
        if (ms > slowest.atCap[1]) slowest.atCap = [name, ms];
      }
    }
  }
  const base = median(baseline);
  const result = (
    name: string,
    samples: number[],
    lines: number,
    size: string,
    worst: [string, number],
  ): BenchResult => {
    const value = percentile(samples, 99);
    return {
      name,
      value: round(value),
      baseline: round(base),
      ratio: round(value / base),
      unit: 'ms',
      target: 'value <= 50',
      note: `p99 over ${samples.length} judgements (${lines} lines of ${size} x ${ROUNDS} rounds x 3: evaluatePolicy under 5 allow rules, under 2 deny rules in bypass, and ruleForCall) vs evaluatePolicy of git status under the 5 allow rules; slowest: ${worst[0]} (${round(worst[1])} ms)`,
    };
  };
  return [
    result('policy.adversarial-line.p99', big, bigLines.length, '1 MiB', slowest.big),
    result(
      'policy.adversarial-line-at-cap.p99',
      atCap,
      capLines.length,
      'just under the 16 KiB and 1 KiB caps',
      slowest.atCap,
    ),
  ];
}

function config(
  shell: PolicyConfig['shell'],
  mode: PolicyConfig['mode'],
  lists: Parameters<typeof compileRules>[0],
): PolicyConfig {
  const rules = compileRules(lists);
  if (!rules.ok) throw rules.error;
  return { mode, rules: rules.value, shell, workspaceRoot: '/work/project' };
}

function timed(fn: () => void): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

await runIfMain(import.meta.url, main);
