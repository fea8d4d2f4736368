/**
 * What redaction costs the writer per message (docs/redaction.md): `Redactor.redactMessage` with
 * the default detectors, as a ratio to what the writer does with every message anyway, validating
 * it (`parseSessionMessage`) and encrypting it (`encryptRecordBase64`, dataKey variant), measured
 * in the same run, interleaved.
 *
 * 1. A text message of about 2 KB of ordinary build output (no secret in it).
 * 2. A `tool-call-start` with a command line, a working directory and an environment of ten
 *    variables in its arguments, one of which holds a GitHub token.
 *
 * Target: ratio <= 1 for both: redaction at most doubles the writer's own work per message.
 *
 * Run directly: `npx tsx bench/redaction.bench.ts`.
 */
import { generateDataKey } from '../packages/sdk/src/crypto/dataKey.js';
import { encryptRecordBase64 } from '../packages/sdk/src/crypto/records.js';
import { newId } from '../packages/sdk/src/protocol/ids.js';
import { parseSessionMessage } from '../packages/sdk/src/protocol/parse.js';
import { Redactor } from '../packages/sdk/src/stream/redactor.js';
import { runIfMain } from './lib/main.js';
import { median, round } from './lib/stats.js';
import type { BenchResult } from './types.js';

const ROUNDS = Number(process.env.BENCH_REDACTION_ROUNDS ?? 20);
const PER_ROUND = 2_000;

/** Runs the redaction benchmarks and returns their results. */
export default async function main(): Promise<BenchResult[]> {
  const base = { id: newId(), time: Date.now(), role: 'agent', turn: newId() } as const;
  const lines = Array.from(
    { length: 30 },
    (_, i) => `[${String(i).padStart(2, '0')}:12] compiled src/module${i}.ts in ${40 + i} ms (cache hit)`,
  );
  const text = { ...base, type: 'text', text: '```\n' + lines.join('\n') + '\n```' };
  const env = Object.fromEntries(
    Array.from({ length: 10 }, (_, i) => [`VAR_${i}`, i === 3 ? `ghp_${'a1B2'.repeat(9)}` : `value-${i}`]),
  );
  const call = {
    ...base,
    type: 'tool-call-start',
    callId: newId(),
    toolName: 'bash',
    title: 'Run `npm run build -- --mode production`',
    description: '',
    args: { command: 'npm run build -- --mode production', cwd: '/home/me/project', env },
  };
  return [measure('redaction.text-2kb', text), measure('redaction.tool-call-args', call)];
}

function measure(name: string, message: object): BenchResult {
  const redactor = new Redactor();
  const key = { variant: 'dataKey', key: generateDataKey() } as const;
  const redact = (): unknown => redactor.redactMessage(message);
  const validate = (): unknown => {
    const parsed = parseSessionMessage(message);
    return parsed.ok ? encryptRecordBase64(parsed.value, key) : parsed;
  };
  for (let i = 0; i < 200; i++) {
    redact();
    validate();
  }
  const redactTimes: number[] = [];
  const validateTimes: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    redactTimes.push(perCall(redact));
    validateTimes.push(perCall(validate));
  }
  const value = median(redactTimes);
  const baseline = median(validateTimes);
  return {
    name,
    value: round(value),
    baseline: round(baseline),
    ratio: round(value / baseline),
    unit: 'µs/message',
    target: 'ratio <= 1',
    note: `Redactor.redactMessage with the default detectors vs parseSessionMessage + encryptRecordBase64 of the same message; median of ${ROUNDS} rounds of ${PER_ROUND}`,
  };
}

function perCall(fn: () => unknown): number {
  const start = performance.now();
  for (let i = 0; i < PER_ROUND; i++) fn();
  return ((performance.now() - start) * 1000) / PER_ROUND;
}

await runIfMain(import.meta.url, main);
