/**
 * Permission overhead: how long a gated tool call waits for the user's answer once the app sends
 * it, against a bare socket.io round trip on the same server.
 *
 * - **Gated:** the agent calls `toolCall.requestPermission()`; once the request's own traffic is
 *   done (its record stored, the agentState mirror written, as when a person reads the request
 *   before tapping), the app sends `rpc-call <sid>:permission {callId, optionId: 'allow-once'}`
 *   with params encrypted before the clock. The figure runs from that `rpc-call` until the tool's
 *   executor starts (the `await` of the decision returns). The follow-up traffic (the response
 *   record, the mirror, the app's ack) is waited for after the clock, before the next sample.
 *   Both sides idle 20 ms before each timed sample, so the server's fan-out of earlier traffic is
 *   over: timed right after a flush, the same trips took 2-7 times as long on a loaded machine.
 * - **Baseline:** a bare socket.io round trip: the app's `rpc-call` to a handler on a bare
 *   session-scoped socket that acks a fixed string at once (no SDK, no decryption), measured in its
 *   own phases (before and after the gated phase), with nothing else in flight.
 *
 * Targets: ratio <= 1.5 at p50, <= 2 at p99. A second gated figure runs a gate without the
 * agentState mirror and the push, to show what those two cost.
 *
 * Run alone: `npx tsx bench/permission.bench.ts`.
 */
import type { Socket } from 'socket.io-client';
import { encryptRecordBase64 } from '../packages/sdk/src/crypto/records.js';
import { PermissionGate } from '../packages/sdk/src/permissions/gate.js';
import { newId } from '../packages/sdk/src/protocol/ids.js';
import { connect } from '../packages/sdk/src/session/connect.js';
import type { Session } from '../packages/sdk/src/session/session.js';
import { runIfMain } from './lib/main.js';
import { AppRpc, AppWatcher, connectSocket } from './lib/rawClient.js';
import { benchServer } from './lib/server.js';
import type { BenchServer } from './lib/server.js';
import { percentile, round } from './lib/stats.js';
import type { BenchResult } from './types.js';

const SAMPLES = Number(process.env.BENCH_PERMISSION_SAMPLES ?? 200);
const WARMUP = 20;
const ECHO = 'bench-echo';
/**
 * Idle time before each timed sample, on both sides: the server's fan-out of the previous
 * traffic (broadcasts that follow its acks) is over, as when a person takes a moment to answer.
 */
const PAUSE_MS = 20;

function pause(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
}

/** Runs the permission overhead benchmark. */
export default async function run(): Promise<BenchResult[]> {
  const server = await benchServer();
  const app = await AppWatcher.open(server.url, server.token);
  try {
    const session = await connect({
      server: server.url,
      credentials: server.credentials,
      title: 'bench rpc',
    });
    let plain: number[];
    try {
      const echo = await bareHandler(server, session.id);
      try {
        plain = await roundTrips(app.socket, session.id, Math.ceil(SAMPLES / 2));
        const full = await gatedCalls(server, app, 'full');
        const bare = await gatedCalls(server, app, 'bare');
        plain.push(...(await roundTrips(app.socket, session.id, Math.floor(SAMPLES / 2))));
        const note = (variant: string): string =>
          `${SAMPLES} samples after ${WARMUP} warm-up; gated = from the app's rpc-call <sid>:permission {callId, optionId: 'allow-once'} until the tool's executor starts, the request's own traffic done and 20 ms idle before the clock (both sides), with ${variant}; baseline = bare socket.io rpc-call to a handler that acks at once, in its own phases (before and after), nothing else in flight; server: ${server.label}`;
        const fullNote = note('the gate as connect() users wire it (rpc, incoming, agentState mirror, push)');
        return [
          figure('permission.gated-call.p50', 50, full, plain, 'ratio <= 1.5', fullNote),
          figure('permission.gated-call.p99', 99, full, plain, 'ratio <= 2', fullNote),
          figure(
            'permission.gated-call-no-mirror-no-push.p50',
            50,
            bare,
            plain,
            undefined,
            note('a gate with only rpc and incoming (no agentState mirror, no push): what those two cost'),
          ),
        ];
      } finally {
        echo.disconnect();
      }
    } finally {
      await session.close();
    }
  } finally {
    app.close();
    await server.close();
  }
}

/** A bare session-scoped socket that registers `<sid>:bench-echo` and acks every request at once. */
async function bareHandler(server: BenchServer, sessionId: string): Promise<Socket> {
  const socket = await connectSocket(server.url, {
    token: server.token,
    clientType: 'session-scoped',
    sessionId,
  });
  socket.on('rpc-request', (_request: unknown, ack: (answer: string) => void) => ack('e30='));
  await new Promise<void>((resolve) => {
    socket.once('rpc-registered', () => resolve());
    socket.emit('rpc-register', { method: `${sessionId}:${ECHO}` });
  });
  return socket;
}

/** `count` bare rpc-call round trips (after a warm-up), one at a time, in ms. */
async function roundTrips(app: Socket, sessionId: string, count: number): Promise<number[]> {
  const params = 'e30=';
  const times: number[] = [];
  for (let i = 0; i < count + WARMUP; i++) {
    await pause();
    const start = performance.now();
    const answer = (await app.timeout(20_000).emitWithAck('rpc-call', {
      method: `${sessionId}:${ECHO}`,
      params,
    })) as { ok?: boolean };
    const time = performance.now() - start;
    if (!answer.ok) throw new Error(`the bare rpc-call failed: ${JSON.stringify(answer)}`);
    if (i >= WARMUP) times.push(time);
  }
  return times;
}

/** Gated calls on a fresh session with a gate of `variant`, in ms (see the file's comment). */
async function gatedCalls(server: BenchServer, app: AppWatcher, variant: 'full' | 'bare'): Promise<number[]> {
  const session: Session = await connect({
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
  const quiet = async (): Promise<void> => {
    await session.writer.flush();
    await gate.settled();
  };
  try {
    const rpc = new AppRpc(app.socket);
    const turn = session.turn();
    await turn.started;
    const times: number[] = [];
    for (let i = 0; i < SAMPLES + WARMUP; i++) {
      const callId = newId();
      const params = await encryptRecordBase64({ callId, optionId: 'allow-once' }, session.key);
      const call = turn.toolCall({
        callId,
        toolName: 'bash',
        kind: 'execute',
        title: 'Run the build',
        args: { command: `make build-${i}` },
      });
      const decided = call.requestPermission();
      await quiet();
      await pause();
      const start = performance.now();
      const answered = rpc.call(session.id, 'permission', params, session.key);
      const decision = await decided;
      const time = performance.now() - start;
      if (decision.outcome !== 'allow') {
        throw new Error(`the gate answered ${decision.outcome}, not allow: ${JSON.stringify(decision)}`);
      }
      await answered;
      call.end();
      await quiet();
      if (i >= WARMUP) times.push(time);
    }
    turn.end();
    await quiet();
    return times;
  } finally {
    gate.dispose();
    await session.close();
  }
}

function figure(
  name: string,
  p: number,
  gated: readonly number[],
  plain: readonly number[],
  target: string | undefined,
  note: string,
): BenchResult {
  const value = percentile(gated, p);
  const baseline = percentile(plain, p);
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
