import { execFileSync } from 'node:child_process';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionWriter } from 'happy-session';
import type { PermissionGate } from 'happy-session/permissions';
import { ShellCommandError, sandboxedShell } from 'happy-session/sandbox';
import type { SandboxedShell, SandboxViolation } from 'happy-session/sandbox';
import { gatedWriter, runBash, sandboxWorld } from './world.js';
import type { SandboxWorld } from './world.js';
import { until } from '../helpers/until.js';

// Through the gate with the sandbox mode on (`sandbox: shell.policy`) and the sandboxed executor:
// what the acceptance asks of calls (docs/sandbox.md). bubblewrap runs for real.
let world: SandboxWorld;
let shell: SandboxedShell;
let writer: SessionWriter;
let gate: PermissionGate;
let messages: Awaited<ReturnType<typeof gatedWriter>>['messages'];
const seen: SandboxViolation[] = [];
/** The workspace's names before the sandbox started. */
let before: Set<string>;

beforeAll(async () => {
  world = await sandboxWorld();
  execFileSync('git', ['init', '-q', world.workspace]);
  await writeFile(
    join(world.workspace, 'package.json'),
    JSON.stringify({ name: 'tiny', version: '1.0.0', scripts: { test: 'node -e "console.log(40 + 2)"' } }),
  );
  before = new Set(await readdir(world.workspace));
  shell = await sandboxedShell({ workspaceRoot: world.workspace, homeDir: world.home });
  expect(shell.unavailable).toBeUndefined();
  shell.violations$.subscribe((v) => seen.push(v));
  // A call that asks would be denied at this deadline instead of waiting: the test fails, not hangs.
  ({ writer, gate, messages } = await gatedWriter({
    workspaceRoot: world.workspace,
    sandbox: shell.policy,
    timeoutMs: 10_000,
  }));
});
afterAll(async () => {
  await writer?.close();
  await shell?.close();
  await world?.remove();
});

describe('with the sandbox mode on, Bash calls run without a prompt (positive controls)', () => {
  it.each([
    ['git status', /No commits yet|On branch/],
    ['npm test', /42/],
    ['ls -la', /package\.json/],
  ])(
    '%s runs, sandboxed, with its output in the call and the decision saying so',
    async (command, output) => {
      const { call, result } = await runBash(writer, shell, { command });
      expect(result.decision).toMatchObject({ outcome: 'allow', source: 'sandbox' });
      expect(result.status).toBe('done');
      if (result.status !== 'done') return;
      // git's opportunistic .git/index.lock and npm's cache may be refused and reported; the command succeeds.
      expect(result.value).toMatchObject({ exitCode: 0, sandboxed: true });
      expect(result.value.output).toMatch(output);
      expect(messages).toContainEqual(
        expect.objectContaining({
          type: 'service',
          parentId: call.callId,
          text: `Runs sandboxed: writes only inside ${shell.workspaceRoot}, no network.`,
        }),
      );
      const texts = messages.filter((m) => m.type === 'text' && m.parentId === call.callId);
      expect(texts.map((m) => (m.type === 'text' ? m.text : '')).join('\n')).toMatch(output);
    },
  );

  it("git status inside sees the workspace's files, not the sandbox's placeholders", async () => {
    // While the warm sandbox is up, its placeholders (missing protected names it holds) are in
    // the workspace, and the host's git lists them; the command's git does not.
    const outside = execFileSync('git', ['status', '--porcelain'], {
      cwd: world.workspace,
      encoding: 'utf8',
    });
    const placeholder = (line: string): boolean => !before.has(line.slice(3).replace(/\/$/, ''));
    expect(outside.split('\n').filter(placeholder).length).toBeGreaterThan(1);
    const { result } = await runBash(writer, shell, { command: 'git status --porcelain' });
    const kept = outside
      .split('\n')
      .filter((line) => line === '' || !placeholder(line))
      .join('\n');
    expect(result.status === 'done' && result.value.output).toBe(kept);
  });

  it('honours args.cwd, relative to the workspace', async () => {
    const { result } = await runBash(writer, shell, { command: 'mkdir -p sub && cd sub && pwd', cwd: '.' });
    expect(result.status).toBe('done');
    const inSub = await runBash(writer, shell, { command: 'pwd', cwd: 'sub' });
    expect(inSub.result.status === 'done' && inSub.result.value.output).toBe(
      `${join(world.workspace, 'sub')}\n`,
    );
  });

  it('passes a failing exit status through as the call ending with an error', async () => {
    const { call, result } = await runBash(writer, shell, { command: 'echo out; echo err >&2; exit 5' });
    expect(result.status).toBe('failed');
    if (result.status !== 'failed') return;
    expect(result.error).toBeInstanceOf(ShellCommandError);
    expect((result.error as ShellCommandError).result).toMatchObject({ exitCode: 5, output: 'out\nerr\n' });
    expect(call.error).toBe('The command (sandboxed) exited with status 5.');
  });
});

describe('what the sandbox blocked is shown on the call', () => {
  it('curl to a host not allowed fails, with the host on the result, the event and the call', async () => {
    const { call, result } = await runBash(writer, shell, {
      command: 'curl -fsS --max-time 5 http://not-allowed.example/',
    });
    expect(result.status).toBe('failed');
    const violation = {
      type: 'sandbox.violation',
      kind: 'network',
      host: 'not-allowed.example:80',
      callId: call.callId,
    };
    expect((result as { error: ShellCommandError }).error.result.violations).toContainEqual(
      expect.objectContaining(violation),
    );
    expect(seen).toContainEqual(expect.objectContaining(violation));
    expect(call.error).toContain('The sandbox blocked a connection to not-allowed.example:80.');
    expect(messages).toContainEqual(
      expect.objectContaining({
        type: 'service',
        parentId: call.callId,
        text: 'The sandbox blocked a connection to not-allowed.example:80.',
      }),
    );
  });

  it('a blocked write names the path', async () => {
    const target = join(world.outside, 'x');
    const { call, result } = await runBash(writer, shell, { command: `touch '${target}'` });
    expect(result.status).toBe('failed');
    expect(call.error).toContain(`The sandbox blocked a write to ${target}.`);
  });
});

describe('a call asking to run outside the sandbox', () => {
  it('asks the person, and runs unsandboxed only once they allowed it', async () => {
    const turn = writer.turn();
    const target = join(world.outside, 'allowed-by-the-person');
    const call = turn.toolCall({
      toolName: 'Bash',
      kind: 'execute',
      args: { command: `touch '${target}'`, dangerouslyDisableSandbox: true },
    });
    const running = call.run(shell.execute);
    await until(() => gate.pendingCallIds.includes(call.callId));
    expect(await readdir(world.outside)).toEqual([]);
    expect(gate.answer({ callId: call.callId, optionId: 'allow-once' })).toMatchObject({
      status: 'applied',
    });
    const result = await running;
    expect(result).toMatchObject({
      status: 'done',
      decision: { source: 'user' },
      value: { sandboxed: false },
    });
    expect(await readdir(world.outside)).toEqual(['allowed-by-the-person']);
    turn.end();
  });
});

describe("the call's signal", () => {
  it('ends a sleep 1000 and the children it started', async () => {
    const marker = `1000.${process.pid}${Date.now() % 100000}`;
    const turn = writer.turn();
    const call = turn.toolCall({
      toolName: 'Bash',
      kind: 'execute',
      args: { command: `sleep ${marker} & sleep ${marker} & sleep ${marker}; wait` },
    });
    const stop = new AbortController();
    const running = call.run(shell.execute, { signal: stop.signal });
    await until(async () => (await pidsRunning(marker)).length === 3);
    const pids = await pidsRunning(marker);
    stop.abort();
    // A tool stopped by the call's signal ends cancelled, not failed.
    const result = await running;
    expect(result.status).toBe('cancelled');
    expect(call.error).toBe('cancelled');
    await until(async () => (await pidsRunning(marker)).length === 0);
    for (const pid of pids) expect(await alive(pid)).toBe(false);
    turn.end();
  });
});

/** Host PIDs whose command line holds `marker`. */
async function pidsRunning(marker: string): Promise<number[]> {
  const out: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '');
    if (cmdline.split('\0')[0]?.endsWith('sleep') && cmdline.includes(marker)) out.push(Number(name));
  }
  return out;
}

async function alive(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  // A zombie has ended; only its parent has not yet collected it.
  return stat !== undefined && !/^\d+ \(.*\) Z/.test(stat);
}
