import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { filter, firstValueFrom } from 'rxjs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fold } from 'happy-session';
import type { FoldedCall, SessionMessage } from 'happy-session';
import type { RecordKey } from 'happy-session/crypto';
import { connect } from 'happy-session/node';
import type { GateSettings, Session } from 'happy-session/node';
import { sandboxedShell } from 'happy-session/sandbox';
import type { SandboxedShell } from 'happy-session/sandbox';
import { AppClient } from '../../test/transport/appClient.js';
import { relayWithAccount, tempDir } from '../../test/transport/helpers.js';
import type { RelayAccount } from '../../test/transport/helpers.js';
import { renderWatchScreen } from '../../packages/cli/src/watch/watchScreen.js';
import { runAcpBridge } from './bridge.js';
import type { AcpBridgeResult } from './bridge.js';

// The bridge on the relay against fixtures/workerAgent.ts, a real ACP agent process: its `plan`
// updates become v2 plans, and, given a sandboxed shell, its terminal commands run in bubblewrap
// as Bash calls gated by the session's permission gate.

const FIXTURE = fileURLToPath(new URL('./fixtures/workerAgent.ts', import.meta.url));
/** tsx's loader by path: the agent runs in a temporary directory, where `--import tsx` resolves nothing. */
const TSX = new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;

let account: RelayAccount;
let app: AppClient;
let work: { path: string; remove: () => void };
let outside: { path: string; remove: () => void };
let session: Session | undefined;
let shell: SandboxedShell | undefined;
let key: RecordKey;
let stop: AbortController;
let bridge: Promise<AcpBridgeResult> | undefined;

beforeEach(async () => {
  account = await relayWithAccount();
  app = await AppClient.open(account.relay.url, account.http, account.token, account.masterSecret);
  work = tempDir('happy-acp-worker-');
  outside = tempDir('happy-acp-outside-');
  stop = new AbortController();
});

afterEach(async () => {
  stop.abort();
  await bridge?.catch(() => undefined);
  bridge = undefined;
  await session?.close();
  session = undefined;
  await shell?.close();
  shell = undefined;
  app.close();
  await account.relay.close();
  work.remove();
  outside.remove();
});

async function open(permissions?: GateSettings): Promise<Session> {
  session = await connect({
    server: account.relay.url,
    credentials: account.credentials,
    archiveOnClose: false,
    ...(permissions ? { permissions } : {}),
  });
  key = await app.keyOf(session.id);
  return session;
}

function start(s: Session, sandbox?: SandboxedShell): void {
  bridge = runAcpBridge({
    session: s,
    command: process.execPath,
    args: ['--import', TSX, FIXTURE],
    cwd: work.path,
    env: {
      ...process.env,
      WORKER_REPORT: join(outside.path, 'report.jsonl'),
      WORKER_OUTSIDE: join(outside.path, 'escaped.txt'),
    },
    ...(sandbox ? { sandbox } : {}),
    signal: stop.signal,
  });
}

function report(): Array<Record<string, unknown>> {
  const file = join(outside.path, 'report.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.length > 0)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** The app sends a prompt and the turn it starts ends. */
async function promptAndWait(s: Session, text: string): Promise<string> {
  const ended = firstValueFrom(
    s.writer.messages$.pipe(
      filter((m): m is Extract<SessionMessage, { type: 'turn-end' }> => m.type === 'turn-end'),
    ),
  );
  await app.send(
    s.id,
    { id: `u${randomUUID().replaceAll('-', '')}`, time: Date.now(), role: 'user', type: 'text', text },
    key,
  );
  const stopped = bridge!.then((r) => {
    throw new Error(`the bridge stopped (${r.stoppedBy}) before the turn ended`);
  });
  return (await Promise.race([ended, stopped])).turn;
}

describe('ACP plan updates', () => {
  it('become the v2 plan: each update replaces the one before, the latest is the plan', async () => {
    const s = await open();
    start(s);
    const turnId = await promptAndWait(s, 'go');
    await s.writer.flush();
    const messages = await s.reader.messages();
    const plans = messages.filter((m) => m.type === 'plan' && m.turn === turnId);
    expect(plans.map((m) => m.type === 'plan' && m.entries.map((e) => e.status))).toEqual([
      ['in_progress', 'pending', 'pending'],
      ['completed', 'completed', 'completed'],
    ]);
    expect(fold(messages).plan?.entries).toEqual([
      { content: 'Write inside the workspace', status: 'completed', priority: 'high' },
      { content: 'Try to write outside it', status: 'completed', priority: 'medium' },
      { content: 'Stop a long command', status: 'completed', priority: 'low' },
    ]);
    // Without a sandbox the bridge offers no terminal, and the agent runs none.
    expect(report()).toEqual([{ terminalCapability: false }]);
    // `watch` shows the latest plan at the top.
    const screen = renderWatchScreen({
      sessionId: s.id,
      title: undefined,
      serverUrl: account.relay.url,
      fold: fold(messages),
      activity: undefined,
      unreadable: 0,
      prompt: undefined,
      waiting: 0,
      status: [],
    });
    expect(screen.slice(3, 7)).toEqual([
      'Plan · 3 of 3 done',
      '  [x] Write inside the workspace (high)',
      '  [x] Try to write outside it (medium)',
      '  [x] Stop a long command (low)',
    ]);
  });
});

describe('ACP terminals in the sandbox', () => {
  it('run unasked in bubblewrap: a write inside lands, one outside fails, output and exit status reach the agent', async () => {
    shell = await sandboxedShell({ workspaceRoot: work.path });
    expect(shell.available).toBe(true);
    const s = await open({ workspaceRoot: shell.workspaceRoot, sandbox: shell.policy });
    start(s, shell);
    const turnId = await promptAndWait(s, 'go');

    const [capability, inside, escaped, long] = report();
    expect(capability).toEqual({ terminalCapability: true });
    expect(inside).toEqual({
      name: 'inside',
      exitCode: 0,
      signal: null,
      output: 'made it\n',
      truncated: false,
    });
    expect(readFileSync(join(work.path, 'inside.txt'), 'utf8')).toBe('inside\n');
    expect(escaped).toMatchObject({ name: 'outside', signal: null, truncated: false });
    expect(escaped!.exitCode).not.toBe(0);
    expect(escaped!.output).not.toContain('wrote');
    expect(existsSync(join(outside.path, 'escaped.txt'))).toBe(false);
    expect(long).toMatchObject({ name: 'long', runningBeforeKill: true });
    expect(report()[4]).toMatchObject({ name: 'long', exitCode: null, signal: 'SIGKILL' });
    // Output over the agent's limit keeps its last bytes, cut at a character.
    expect(report()[5]).toEqual({
      name: 'chatty',
      exitCode: 0,
      signal: null,
      output: '0123456789',
      truncated: true,
    });

    await s.writer.flush();
    const folded = fold(await s.reader.messages());
    const calls = folded.turn(turnId)!.children.filter((n): n is FoldedCall => n.kind === 'call');
    expect(calls.map((c) => [c.start.toolName, c.start.args.command, c.status])).toEqual([
      ['Bash', `sh -c 'echo inside > inside.txt && echo "made it"'`, 'done'],
      ['Bash', `touch ${join(outside.path, 'escaped.txt')} && echo wrote`, 'failed'],
      ['Bash', 'sleep 1000', 'failed'],
      ['Bash', "printf %s 'hé0123456789'", 'done'],
    ]);
    // The sandbox let them run without a prompt, and the stream says they ran confined.
    for (const call of calls) expect(call.permission).toBeUndefined();
    expect(calls[1]!.end?.error).toContain(
      `The sandbox blocked a write to ${join(outside.path, 'escaped.txt')}`,
    );
    const notes = calls[0]!.children.flatMap((n) => (n.kind === 'message' ? [n.message] : []));
    expect(notes.some((m) => m.type === 'service' && m.text.startsWith('Runs sandboxed'))).toBe(true);
    expect(notes.some((m) => m.type === 'text' && m.text.includes('made it'))).toBe(true);
  });

  it('ask the person where the sandbox cannot run; denied, nothing runs and the agent gets an error', async () => {
    shell = await sandboxedShell({ workspaceRoot: work.path, bwrapPath: join(work.path, 'no-bwrap') });
    expect(shell.available).toBe(false);
    const s = await open({ workspaceRoot: shell.workspaceRoot, sandbox: shell.policy });
    // The person denies every command from the app.
    s.writer.messages$.pipe(filter((m) => m.type === 'permission-request')).subscribe((request) => {
      if (request.type !== 'permission-request') return;
      void app.call(s.id, 'permission', { id: request.callId, approved: false, decision: 'denied' }, key);
    });
    start(s, shell);
    const turnId = await promptAndWait(s, 'go');
    const entries = report().slice(1);
    expect(entries.map((e) => e.name)).toEqual(['inside', 'outside', 'long', 'chatty']);
    for (const entry of entries) expect(String(entry.error)).toContain('The command did not run');
    expect(existsSync(join(work.path, 'inside.txt'))).toBe(false);
    await s.writer.flush();
    const calls = fold(await s.reader.messages())
      .turn(turnId)!
      .children.filter((n): n is FoldedCall => n.kind === 'call');
    expect(calls.map((c) => c.status)).toEqual(['denied', 'denied', 'denied', 'denied']);
  });
});
