/**
 * What refusing oversized tool arguments costs the host (docs/permissions-policy.md, "What runs is
 * what was shown"; issue 35, item 6): one `turn.toolCall()` whose `args` would write more than a
 * record holds, timed until it throws `stream.too_large`.
 *
 * - `args.million-keys-refusal.p50`: `args` with 1,000,000 keys in one object. Baseline:
 *   `Object.keys()` of the same object, which no enumeration of it in JavaScript goes under (V8
 *   lists and sorts every key of a large object before the first is visited, `for…in` too).
 *   Target: value <= 50 ms.
 *   This figure cannot meet its target for an object the host has already built; see
 *   docs/performance.md, "Oversized tool arguments".
 * - `args.million-keys-text-refusal.p50`: the same 1,000,000 keys as JSON text, the way the AI SDK
 *   and OpenAI Agents adapters receive a tool call's input, through the adapters' `startCall()`,
 *   with keys short enough that the text (7,000,000 characters) is under `MAX_ARGS_TEXT`: the scan counts
 *   it and refuses it before any object is built. Baseline: `JSON.parse()` of that
 *   text. Target: value <= 50 ms.
 * - `args.million-nested-keys-refusal.p50`: 1,000,000 keys as 1,000 objects of 1,000 keys, where
 *   the count stops the walk after about a tenth of them. Baseline: `Object.keys()` of one inner
 *   object. Target: value <= 50 ms.
 *
 * Run directly: `npx tsx bench/boundedArgs.bench.ts`.
 */
import { generateDataKey } from '../packages/sdk/src/crypto/dataKey.js';
import { MemoryTransport, SdkError, SessionWriter } from '../packages/sdk/src/index.js';
import { MAX_ARGS_TEXT } from '../packages/sdk/src/stream/argsText.js';
import { startCall } from '../packages/sdk/src/integrations/toolCalls.js';
import { runIfMain } from './lib/main.js';
import { median, round } from './lib/stats.js';
import type { BenchResult } from './types.js';

const ROUNDS = Number(process.env.BENCH_BOUNDED_ARGS_ROUNDS ?? 7);

function wide(
  keys: number,
  value: (i: number) => unknown,
  name: (i: number) => string = (i) => `k${i}`,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (let i = 0; i < keys; i++) out[name(i)] = value(i);
  return out;
}

/** Milliseconds from `turn.toolCall()` to its `stream.too_large`. */
function refusal(writer: SessionWriter, args: Record<string, unknown>): number {
  const turn = writer.turn();
  const start = performance.now();
  try {
    turn.toolCall({ toolName: 'Bash', args });
  } catch (error) {
    const ms = performance.now() - start;
    turn.end();
    if (error instanceof SdkError && error.code === 'stream.too_large') return ms;
    throw error;
  }
  throw new Error('the arguments were not refused');
}

/** Milliseconds from an adapter's `startCall()` with JSON text to its `stream.too_large`. */
function textRefusal(writer: SessionWriter, text: string): number {
  const turn = writer.turn();
  const start = performance.now();
  try {
    startCall(turn, 'Bash', text, undefined);
  } catch (error) {
    const ms = performance.now() - start;
    turn.end();
    if (error instanceof SdkError && error.code === 'stream.too_large') return ms;
    throw error;
  }
  throw new Error('the arguments were not refused');
}

function timed(fn: () => unknown): number {
  const start = performance.now();
  fn();
  return performance.now() - start;
}

/** Runs the benchmark and returns its results. */
export default async function main(): Promise<BenchResult[]> {
  const writer = new SessionWriter({
    transport: new MemoryTransport(),
    key: { variant: 'dataKey', key: generateDataKey() },
  });
  const flat = wide(1_000_000, (i) => i);
  const nested = wide(1_000, () => wide(1_000, (i) => i));
  const inner = nested.k0 as Record<string, unknown>;
  // Keys of two CJK characters (a million distinct ones) keep the text under MAX_ARGS_TEXT, so the
  // scan, not the length, refuses it.
  const text = JSON.stringify(
    wide(
      1_000_000,
      () => 0,
      (i) => String.fromCharCode(0x4e00 + (i >> 10), 0x4e00 + (i & 1023)),
    ),
  );
  if (text.length > MAX_ARGS_TEXT) throw new Error('the text would be refused by its length alone');
  // Warm-up: the writer, the copy, the scan and the key listing.
  refusal(writer, flat);
  refusal(writer, nested);
  textRefusal(writer, text);

  const samples = {
    flat: [] as number[],
    nested: [] as number[],
    keys: [] as number[],
    text: [] as number[],
    parse: [] as number[],
    innerKeys: [] as number[],
  };
  for (let round = 0; round < ROUNDS; round++) {
    samples.keys.push(timed(() => Object.keys(flat)));
    samples.flat.push(refusal(writer, flat));
    samples.parse.push(timed(() => JSON.parse(text)));
    samples.text.push(textRefusal(writer, text));
    samples.innerKeys.push(timed(() => Object.keys(inner)));
    samples.nested.push(refusal(writer, nested));
  }
  await writer.close();
  const result = (name: string, values: number[], baseline: number[], note: string): BenchResult => {
    const value = median(values);
    const base = median(baseline);
    return {
      name,
      value: round(value),
      baseline: round(base),
      ratio: round(value / base),
      unit: 'ms',
      target: 'value <= 50',
      note: `median of ${ROUNDS} refusals (stream.too_large) ${note}; slowest ${round(Math.max(...values))} ms`,
    };
  };
  return [
    result(
      'args.million-keys-refusal.p50',
      samples.flat,
      samples.keys,
      'of args with 1,000,000 keys in one object, vs Object.keys() of that object',
    ),
    result(
      'args.million-keys-text-refusal.p50',
      samples.text,
      samples.parse,
      'of the same 1,000,000 keys as JSON text through an adapter, vs JSON.parse() of that text',
    ),
    result(
      'args.million-nested-keys-refusal.p50',
      samples.nested,
      samples.innerKeys,
      'of args with 1,000 objects of 1,000 keys, vs Object.keys() of one inner object',
    ),
  ];
}

await runIfMain(import.meta.url, main);
