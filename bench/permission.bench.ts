/**
 * Permission overhead: a gated tool call answered at once through the `permission` RPC over the
 * server — from `toolCall.requestPermission()` until both the agent has its `allow` decision and
 * the app has the RPC's answer — against a plain RPC round trip in the same session (`rpc-call` →
 * a handler registered on `session.rpc` that returns at once → ack), with a params body of the same
 * shape. Both sides include the app's decryption of the answer. Target: ratio <= 1.5 at p50.
 *
 * What the gate adds: the `permission-request` and `permission-response` records (appended, not
 * awaited), the agentState mirror and the push notification, all on the same socket and server.
 * A second figure runs a gate without the mirror and push, to show what those two cost.
 *
 * Run alone: `npx tsx bench/permission.bench.ts`.
 */
import { encryptRecordBase64 } from '../packages/sdk/src/crypto/records.js';
import { PermissionGate } from '../packages/sdk/src/permissions/gate.js';
import { newId } from '../packages/sdk/src/protocol/ids.js';
import { connect } from '../packages/sdk/src/session/connect.js';
import { runIfMain } from './lib/main.js';
import { AppRpc, AppWatcher } from './lib/rawClient.js';
import { benchServer } from './lib/server.js';
import type { BenchServer } from './lib/server.js';
import { percentile, round } from './lib/stats.js';
import type { BenchResult } from './types.js';

const SAMPLES = Number(process.env.BENCH_PERMISSION_SAMPLES ?? 200);
const WARMUP = 20;
const ECHO = 'bench-echo';

/** Runs the permission overhead benchmark. */
export default async function run(): Promise<BenchResult[]> {
  const server = await benchServer();
  const app = await AppWatcher.open(server.url, server.token);
  try {
    const full = await measure(server, app, 'full');
    const bare = await measure(server, app, 'bare');
    const note = (variant: string): string =>
      `${SAMPLES} alternating samples after ${WARMUP} warm-up; gated = requestPermission() answered by rpc-call <sid>:permission {callId, optionId: 'allow-once'} with ${variant}; plain = rpc-call of a handler that returns at once; server: ${server.label}`;
    const fullNote = note('the gate as connect() users wire it (rpc, incoming, agentState mirror, push)');
    return [
      figure('permission.gated-call.p50', 50, full, 'ratio <= 1.5', fullNote),
      figure('permission.gated-call.p99', 99, full, undefined, fullNote),
      figure(
        'permission.gated-call-no-mirror-no-push.p50',
        50,
        bare,
        undefined,
        note('a gate with only rpc and incoming (no agentState mirror, no push): what those two cost'),
      ),
    ];
  } finally {
    app.close();
    await server.close();
  }
}

interface Samples {
  readonly gated: number[];
  readonly plain: number[];
}

/** Alternates gated calls and plain RPC round trips on a fresh session with a gate of `variant`. */
async function measure(server: BenchServer, app: AppWatcher, variant: 'full' | 'bare'): Promise<Samples> {
  const session = await connect({
    server: server.url,
    credentials: server.credentials,
    title: `bench permission (${variant})`,
  });
  const gate = await PermissionGate.create({
    writer: session.writer,
    rpc: session.rpc,
    incoming: session.incoming$,
    ...(variant === 'full' ? { state: session.state, push: session.push } : {}),
  });
  try {
    const rpc = new AppRpc(app.socket);
    session.rpc.register(ECHO, (body) => ({
      status: 'applied',
      callId: (body as { callId?: string }).callId,
    }));
    const turn = session.turn();
    await turn.started;
    const samples: Samples = { gated: [], plain: [] };
    for (let i = 0; i < SAMPLES + WARMUP; i++) {
      const callId = newId();
      // The app's params are encrypted before the clock starts, on both sides.
      const params = await encryptRecordBase64({ callId, optionId: 'allow-once' }, session.key);
      const echoParams = await encryptRecordBase64({ callId: newId(), optionId: 'allow-once' }, session.key);

      const call = turn.toolCall({
        callId,
        toolName: 'bash',
        kind: 'execute',
        title: 'Run the build',
        args: { command: `make build-${i}` },
      });
      const start = performance.now();
      const [decision] = await Promise.all([
        call.requestPermission(),
        rpc.call(session.id, 'permission', params, session.key),
      ]);
      const gatedTime = performance.now() - start;
      if (decision.outcome !== 'allow') {
        throw new Error(`the gate answered ${decision.outcome}, not allow: ${JSON.stringify(decision)}`);
      }
      call.end();

      const echoStart = performance.now();
      await rpc.call(session.id, ECHO, echoParams, session.key);
      const plainTime = performance.now() - echoStart;
      if (i >= WARMUP) {
        samples.gated.push(gatedTime);
        samples.plain.push(plainTime);
      }
    }
    turn.end();
    await session.writer.flush();
    await gate.settled();
    return samples;
  } finally {
    gate.dispose();
    await session.close();
  }
}

function figure(
  name: string,
  p: number,
  samples: Samples,
  target: string | undefined,
  note: string,
): BenchResult {
  const value = percentile(samples.gated, p);
  const baseline = percentile(samples.plain, p);
  return {
    name,
    value: round(value),
    baseline: round(baseline),
    ratio: round(value / baseline),
    unit: 'ms',
    ...(target ? { target } : {}),
    note,
  };
}

await runIfMain(import.meta.url, run);
