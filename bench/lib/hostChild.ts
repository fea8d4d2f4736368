/**
 * The host of the `sessions.host-1000` benchmark, in its own process so that its RSS and CPU are
 * its own: `node --expose-gc --import tsx hostChild.ts`, forked with an IPC channel and pointed at
 * the server by `HAPPY_SERVER_URL` and `HAPPY_HOME_DIR`, as a bot's process would be. It opens
 * sessions with `connect()`, sits idle, and asks for permission in each, on the parent's commands
 * ({@link HostCommand}); each answer is a {@link HostReply}.
 */
import { writeFileSync } from 'node:fs';
import { Session as Inspector } from 'node:inspector/promises';
import { PerformanceObserver } from 'node:perf_hooks';
import { writeHeapSnapshot } from 'node:v8';
import { encodeBase64 } from '../../packages/sdk/src/crypto/base64.js';
import { connect } from '../../packages/sdk/src/session/connect.js';
import type { Session } from '../../packages/sdk/src/session/session.js';
import { openAccountSockets } from '../../packages/sdk/src/transport/accountSockets.js';
import { collectGarbage } from './stats.js';

/** What the parent asks. */
export type HostCommand =
  | { readonly op: 'open'; readonly count: number }
  | { readonly op: 'rss' }
  | { readonly op: 'idle'; readonly ms: number }
  | { readonly op: 'ask'; readonly from: number; readonly to: number; readonly times: number }
  | { readonly op: 'drop'; readonly from: number; readonly to: number }
  | { readonly op: 'close' };

/** A session the parent's app side must know: its id and key. */
export interface HostedSession {
  readonly id: string;
  readonly variant: 'legacy' | 'dataKey';
  readonly key: string;
}

/** What the host answers. */
export type HostReply =
  | { readonly op: 'open'; readonly sessions: readonly HostedSession[] }
  | {
      readonly op: 'rss';
      readonly rss: number;
      readonly heapUsed: number;
      readonly heapTotal: number;
      readonly external: number;
      readonly sockets: number;
    }
  | { readonly op: 'idle'; readonly cpuMs: number; readonly wallMs: number }
  | { readonly op: 'ask'; readonly latencies: readonly number[] }
  | { readonly op: 'drop' }
  | { readonly op: 'close' }
  | { readonly op: 'error'; readonly message: string };

/** Sessions opened at once while the host opens many. */
const OPEN_CONCURRENCY = 8;
/** Idle before each timed request: the server's fan-out of the last one is over. */
const PAUSE_MS = 20;

const sessions: Session[] = [];

function reply(message: HostReply): void {
  process.send!(message);
}

async function open(count: number): Promise<HostedSession[]> {
  const opened: Session[] = [];
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) {
      next += 1;
      opened.push(
        await connect({ title: `bench host ${sessions.length + opened.length}`, shutdownSignals: false }),
      );
    }
  };
  await Promise.all(Array.from({ length: Math.min(OPEN_CONCURRENCY, count) }, worker));
  sessions.push(...opened);
  return opened.map((s) => ({ id: s.id, variant: s.key.variant, key: encodeBase64(s.key.key) }));
}

async function rss(): Promise<{
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  sockets: number;
}> {
  await collectGarbage();
  await new Promise((resolve) => setTimeout(resolve, 500));
  await collectGarbage();
  const { rss, heapUsed, heapTotal, external } = process.memoryUsage();
  if (process.env.BENCH_HOST_HEAP_SNAPSHOT_DIR) {
    writeHeapSnapshot(`${process.env.BENCH_HOST_HEAP_SNAPSHOT_DIR}/host-${sessions.length}.heapsnapshot`);
  }
  return { rss, heapUsed, heapTotal, external, sockets: openAccountSockets() };
}

async function idle(ms: number): Promise<{ cpuMs: number; wallMs: number }> {
  const profiler = process.env.BENCH_HOST_CPU_PROFILE_DIR ? await startProfiler() : undefined;
  let gcMs = 0;
  let gcs = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      gcMs += entry.duration;
      gcs++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  const cpu = process.cpuUsage();
  const start = performance.now();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const used = process.cpuUsage(cpu);
  const wallMs = performance.now() - start;
  observer.disconnect();
  process.stderr.write(
    `  host: idle ${sessions.length} sessions, CPU user ${(used.user / 1000).toFixed(0)} ms, system ${(used.system / 1000).toFixed(0)} ms, ${gcs} GCs ${gcMs.toFixed(0)} ms\n`,
  );
  if (profiler) {
    const { profile } = await profiler.post('Profiler.stop');
    writeFileSync(
      `${process.env.BENCH_HOST_CPU_PROFILE_DIR}/idle-${sessions.length}.cpuprofile`,
      JSON.stringify(profile),
    );
    profiler.disconnect();
  }
  return { cpuMs: (used.user + used.system) / 1000, wallMs };
}

/** A CPU profile of this process from now on (`BENCH_HOST_CPU_PROFILE_DIR`: where each idle phase's is written). */
async function startProfiler(): Promise<Inspector> {
  const inspector = new Inspector();
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.start');
  return inspector;
}

/**
 * For each session in `[from, to)`, `times` times: a tool call asks for permission; the clock runs
 * from `requestPermission()` until the decision (the app saw the request and answered it by the
 * `permission` RPC). The call's own start is stored before the clock, the follow-up after it.
 */
async function ask(from: number, to: number, times: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = from; i < to; i++) {
    const session = sessions[i]!;
    for (let t = 0; t < times; t++) {
      const turn = session.turn();
      const call = turn.toolCall({
        toolName: 'bash',
        kind: 'execute',
        title: 'Run the build',
        args: { command: `make build-${i}-${t}` },
      });
      await session.writer.flush();
      await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
      const start = performance.now();
      const decision = await call.requestPermission({ timeoutMs: 30_000 });
      latencies.push(performance.now() - start);
      if (decision.outcome !== 'allow') {
        throw new Error(`session ${i}: the gate answered ${decision.outcome}: ${JSON.stringify(decision)}`);
      }
      call.end();
      turn.end();
      await session.writer.flush();
      await session.gate?.settled();
    }
  }
  return latencies;
}

async function handle(command: HostCommand): Promise<HostReply> {
  const started = performance.now();
  const reply = await run(command);
  process.stderr.write(`  host: ${command.op} took ${((performance.now() - started) / 1000).toFixed(1)} s\n`);
  return reply;
}

async function run(command: HostCommand): Promise<HostReply> {
  switch (command.op) {
    case 'open':
      return { op: 'open', sessions: await open(command.count) };
    case 'rss':
      return { op: 'rss', ...(await rss()) };
    case 'idle':
      return { op: 'idle', ...(await idle(command.ms)) };
    case 'ask':
      return { op: 'ask', latencies: await ask(command.from, command.to, command.times) };
    case 'drop':
      await Promise.all(sessions.slice(command.from, command.to).map((s) => s.close({ archive: false })));
      return { op: 'drop' };
    case 'close':
      await Promise.all(sessions.map((s) => s.close({ archive: false })));
      return { op: 'close' };
  }
}

process.on('message', (command: HostCommand) => {
  handle(command).then(reply, (error: unknown) =>
    reply({ op: 'error', message: error instanceof Error ? (error.stack ?? error.message) : String(error) }),
  );
});
