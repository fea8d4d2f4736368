/**
 * `sessions.host-1000`: one process hosts a thousand sessions (a bot, an agent server).
 *
 * - **The host** is a child process (`lib/hostChild.ts`), so its RSS and CPU are its own; the relay
 *   is another (`lib/relayChild.ts`); this process plays the Happy app: a user-scoped socket that
 *   decrypts each session's `new-message` and answers every `permission-request` at once with the
 *   `permission` RPC `{callId, optionId: 'allow-once'}`.
 * - **Single session first:** after a warm-up, {@link SINGLE_SAMPLES} times the host opens a
 *   session, a tool call in it asks for permission once, and the session closes, so each request
 *   is the first of a session alone on the host, as each of the thousand will be (a session asked
 *   many times grows its agentState mirror). The clock runs from `requestPermission()` until the
 *   decision (the request stored, seen by the app, answered by RPC, the answer back in the agent),
 *   with 20 ms idle before each. Then the host idles {@link SINGLE_IDLE_MS} with one session.
 * - **Then a thousand:** the host opens {@link HOSTED} − 1 more sessions, idles {@link IDLE_MS}
 *   (60 s) with all of them open, and asks once in each, one session after another, timed alike.
 *
 * Figures: RSS per open session (RSS after GC with all open at the end of the idle minute, less
 * RSS with none after the single phase, over the thousand; target ≤ 100 KB; the reading right
 * after the opening, whose garbage V8 still keeps room for, is in the detail); the host's CPU while all sit idle, in % of one core (target ≤ 2 %);
 * p50 and p99 of the latency across the thousand against the single session's (target ≤ 2×).
 *
 * The relay's default limits fit: the host holds one socket (docs/transport.md, "One socket per
 * account"), the app another (the default `socketsPerAccount` is 128); the requests are made one
 * at a time (`rpcCallsInFlight` 128); the thousand sessions write about 6,000 records
 * (`messagesPerMinute` 120,000). None is raised.
 *
 * Run alone: `npx tsx bench/sessions.bench.ts` (`BENCH_HOST_SESSIONS`, `BENCH_HOST_IDLE_MS` to
 * try other sizes; `BENCH_HOST_HEAP_SNAPSHOT_DIR` to have the host write a heap snapshot where it
 * measures RSS, with none and with all open; `BENCH_HOST_CPU_PROFILE_DIR` to have it write a CPU
 * profile of each idle phase). The host's stderr gives each idle phase's user and system CPU and
 * its garbage collections.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Socket } from 'socket.io-client';
import { decodeBase64 } from '../packages/sdk/src/crypto/base64.js';
import { decryptRecord, encryptRecordBase64 } from '../packages/sdk/src/crypto/records.js';
import type { RecordKey } from '../packages/sdk/src/crypto/records.js';
import { installNodePlatform } from '../packages/sdk/src/transport/nodePlatform.js';
import type { HostCommand, HostReply, HostedSession } from './lib/hostChild.js';
import { runIfMain } from './lib/main.js';
import { tsxNodeArgs } from './lib/node.js';
import { connectSocket } from './lib/rawClient.js';
import { benchServer } from './lib/server.js';
import { percentile, round } from './lib/stats.js';
import type { BenchResult } from './types.js';

const HOSTED = Number(process.env.BENCH_HOST_SESSIONS ?? 1000);
const IDLE_MS = Number(process.env.BENCH_HOST_IDLE_MS ?? 60_000);
const SINGLE_IDLE_MS = 10_000;
const SINGLE_SAMPLES = 40;
/** Idle after a single session opens, before it is asked. */
const SETTLE_MS = 1_500;
const WARMUP = 20;
const NAME = 'sessions.host-1000';
const HOST = fileURLToPath(new URL('./lib/hostChild.ts', import.meta.url));

/** Runs the many-sessions benchmark. */
export default async function run(): Promise<BenchResult[]> {
  installNodePlatform();
  const server = await benchServer();
  const app = await PermissionAnswerer.open(server.url, server.token);
  const host = await Host.start(server.childEnv);
  try {
    // Warm-up: one session, asked WARMUP times, closed.
    app.watch((await host.ask({ op: 'open', count: 1 })).sessions);
    await host.ask({ op: 'ask', from: 0, to: 1, times: WARMUP });
    await host.ask({ op: 'drop', from: 0, to: 1 });
    // Alone on the host: a fresh session each time, asked once, as each of the thousand will be.
    const single: number[] = [];
    for (let i = 1; i <= SINGLE_SAMPLES; i++) {
      app.watch((await host.ask({ op: 'open', count: 1 })).sessions);
      // Its start-up traffic (catch-up read, first tail checks, state writes) over, as the thousand's is.
      await host.ask({ op: 'idle', ms: SETTLE_MS });
      single.push(...(await host.ask({ op: 'ask', from: i, to: i + 1, times: 1 })).latencies);
      await host.ask({ op: 'drop', from: i, to: i + 1 });
    }
    const none = await host.ask({ op: 'rss' });
    const first = SINGLE_SAMPLES + 1;
    app.watch((await host.ask({ op: 'open', count: 1 })).sessions);
    const singleIdle = await host.ask({ op: 'idle', ms: SINGLE_IDLE_MS });

    app.watch((await host.ask({ op: 'open', count: HOSTED - 1 })).sessions);
    const opened = await host.ask({ op: 'rss' });
    const idle = await host.ask({ op: 'idle', ms: IDLE_MS });
    const all = await host.ask({ op: 'rss' });
    const many = (await host.ask({ op: 'ask', from: first, to: first + HOSTED, times: 1 })).latencies;
    await host.ask({ op: 'close' });

    const perSessionKb = (all.rss - none.rss) / HOSTED / 1024;
    const firstKb = none.rss / 1024;
    const perKb = (of: 'rss' | 'heapUsed' | 'heapTotal' | 'external', at = all): number =>
      round((at[of] - none[of]) / HOSTED / 1024);
    const coreShare = (r: { cpuMs: number; wallMs: number }): number => (100 * r.cpuMs) / r.wallMs;
    const where = `${HOSTED} sessions in one process (a child), relay in another, default relay limits; server: ${server.label}`;
    const latency = (p: number): BenchResult => {
      const value = percentile(many, p);
      const baseline = percentile(single, p);
      return {
        name: `${NAME}.latency.p${p}`,
        value: round(value),
        baseline: round(baseline),
        ratio: round(value / baseline),
        unit: 'ms',
        target: 'ratio <= 2',
        note: `from requestPermission() until the decision (stored, seen by the app, answered by the permission RPC), 20 ms idle before each; value = once in each of the ${HOSTED} sessions, one after another, after ${IDLE_MS / 1000} s idle; baseline = once in each of ${SINGLE_SAMPLES} fresh sessions, each alone on the host (opened, idle ${SETTLE_MS / 1000} s, asked, closed), after ${WARMUP} warm-up requests; ${where}`,
      };
    };
    return [
      {
        name: `${NAME}.rss-per-session`,
        value: round(perSessionKb),
        baseline: round(firstKb),
        ratio: round(perSessionKb / firstKb),
        unit: 'KB',
        target: 'value <= 100',
        note: `value = (RSS after GC with all ${HOSTED} open, at the end of the ${IDLE_MS / 1000} s idle − RSS with none, after the single-session phase) / ${HOSTED}; baseline = the host's RSS with none (${all.sockets} account socket(s) open with all); per session, at the same two moments: JS heap used ${perKb('heapUsed')} KB, heap reserved (heapTotal) ${perKb('heapTotal')} KB, external ${perKb('external')} KB; right after the last session opened (before the idle): RSS ${perKb('rss', opened)} KB, heap used ${perKb('heapUsed', opened)} KB, heapTotal ${perKb('heapTotal', opened)} KB; ${where}`,
      },
      {
        name: `${NAME}.idle-cpu`,
        value: round(coreShare(idle)),
        baseline: round(coreShare(singleIdle)),
        ratio: round(coreShare(idle) / Math.max(coreShare(singleIdle), 1e-6)),
        unit: '% of a core',
        target: 'value <= 2',
        note: `the host's CPU time (process.cpuUsage) over ${IDLE_MS / 1000} s with all ${HOSTED} sessions open and idle; baseline = the same over ${SINGLE_IDLE_MS / 1000} s with one; ${where}`,
      },
      latency(50),
      latency(99),
    ];
  } finally {
    await host.stop();
    app.close();
    await server.close();
  }
}

/** The host child and its command channel: one command at a time, each answered once. */
class Host {
  private constructor(private readonly child: ChildProcess) {}

  static async start(env: Readonly<Record<string, string>>): Promise<Host> {
    const child = fork(HOST, [], {
      execArgv: tsxNodeArgs(),
      env: { ...process.env, ...env },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', () => resolve());
      child.once('error', reject);
    });
    return new Host(child);
  }

  ask<C extends HostCommand>(command: C): Promise<Extract<HostReply, { op: C['op'] }>> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`the host exited with ${code}`));
      this.child.once('exit', onExit);
      this.child.once('message', (reply: HostReply) => {
        this.child.off('exit', onExit);
        if (reply.op === 'error') reject(new Error(`the host failed: ${reply.message}`));
        else resolve(reply as Extract<HostReply, { op: C['op'] }>);
      });
      this.child.send(command);
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGTERM');
    await exited;
  }
}

/**
 * The app's side: a user-scoped socket that answers every permission request of the watched
 * sessions with `allow-once` by the `permission` RPC, as a person tapping Allow at once.
 */
class PermissionAnswerer {
  private readonly keys = new Map<string, RecordKey>();

  private constructor(private readonly socket: Socket) {
    socket.on('update', (update: unknown) => {
      this.onUpdate(update).catch((error: unknown) => process.stderr.write(`  app: ${String(error)}\n`));
    });
  }

  static async open(url: string, token: string): Promise<PermissionAnswerer> {
    return new PermissionAnswerer(await connectSocket(url, { token, clientType: 'user-scoped' }));
  }

  watch(sessions: readonly HostedSession[]): void {
    for (const s of sessions) this.keys.set(s.id, { variant: s.variant, key: decodeBase64(s.key) });
  }

  close(): void {
    this.socket.disconnect();
  }

  private async onUpdate(update: unknown): Promise<void> {
    const body = (update as { body?: { t?: string; sid?: string; message?: { content?: { c?: string } } } })
      ?.body;
    if (body?.t !== 'new-message' || !body.sid) return;
    const key = this.keys.get(body.sid);
    const content = body.message?.content?.c;
    if (!key || typeof content !== 'string') return;
    const decrypted = await decryptRecord(content, key);
    if (!decrypted.ok) return;
    const message = decrypted.value as { type?: unknown; callId?: unknown };
    if (message.type !== 'permission-request' || typeof message.callId !== 'string') return;
    const params = await encryptRecordBase64({ callId: message.callId, optionId: 'allow-once' }, key);
    const answer = (await this.socket
      .timeout(20_000)
      .emitWithAck('rpc-call', { method: `${body.sid}:permission`, params })) as {
      ok?: boolean;
      error?: string;
    };
    if (!answer.ok) process.stderr.write(`  app: the permission rpc-call failed: ${answer.error}\n`);
  }
}

await runIfMain(import.meta.url, run);
