import { randomInt } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionWriter } from 'happy-session';
import { commandExecutor, sandboxedShell } from 'happy-session/sandbox';
import type { CommandExecutorOptions, SandboxedShell } from 'happy-session/sandbox';
import { gatedWriter, sandboxWorld } from './world.js';
import type { SandboxWorld } from './world.js';
import { until } from '../helpers/until.js';

// issue 38, item 3: the one helper that runs a call's command kills the whole tree on stop and on
// its deadline, sandboxed (real bubblewrap) and unsandboxed (real bash); checked by pid in /proc.
let world: SandboxWorld;
let shell: SandboxedShell;
let writer: SessionWriter;
let messages: Awaited<ReturnType<typeof gatedWriter>>['messages'];

beforeAll(async () => {
  world = await sandboxWorld();
  shell = await sandboxedShell({ workspaceRoot: world.workspace, homeDir: world.home });
  expect(shell.unavailable).toBeUndefined();
  ({ writer, messages } = await gatedWriter({ workspaceRoot: world.workspace, mode: 'bypassPermissions' }));
});
afterAll(async () => {
  await writer?.close();
  await shell?.close();
  await world?.remove();
});

/** A `sleep` duration no other process on the machine has: its pids are found by it. */
function marker(): string {
  return `${3000 + randomInt(1000)}.${randomInt(1_000_000)}`;
}

/** Live (not zombie) processes whose command line holds `mark`. */
async function alive(mark: string): Promise<number[]> {
  const pids: number[] = [];
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const argv = (await readFile(`/proc/${name}/cmdline`, 'utf8')).split('\0');
      if (argv[0] !== 'sleep' || argv[1] !== mark) continue;
      const stat = await readFile(`/proc/${name}/stat`, 'utf8');
      if (stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z') pids.push(Number(name));
    } catch {
      // Gone while read.
    }
  }
  return pids;
}

const modes: [string, () => CommandExecutorOptions][] = [
  ['unsandboxed', () => ({ unsandboxed: true, cwd: world.workspace })],
  ['sandboxed', () => ({ shell })],
];

describe.each(modes)('commandExecutor, %s', (_mode, options) => {
  it('runs a command and streams its output into the call (positive control)', async () => {
    const turn = writer.turn();
    const call = turn.toolCall({ toolName: 'Bash', kind: 'execute', args: { command: 'echo ran-here' } });
    const result = await call.run(commandExecutor(options()));
    turn.end();
    expect(result.status).toBe('done');
    expect(result.status === 'done' && result.value.output).toBe('ran-here\n');
    expect(messages).toContainEqual(
      expect.objectContaining({ type: 'text', parentId: call.callId, text: '```\nran-here\n```' }),
    );
  });

  it('a stop ends a command whose children run in the background, and none is left', async () => {
    const mark = marker();
    const stop = new AbortController();
    const turn = writer.turn();
    const call = turn.toolCall({
      toolName: 'Bash',
      kind: 'execute',
      args: {
        command: `sleep ${mark} & (sleep ${mark} &); nohup sleep ${mark} >/dev/null 2>&1 & echo started; wait`,
      },
    });
    const running = call.run(commandExecutor(options()), { signal: stop.signal });
    try {
      const pids = await until(async () => ((await alive(mark)).length === 3 ? alive(mark) : undefined), {
        what: 'three background sleeps running',
      });
      expect(pids).toHaveLength(3);
    } finally {
      stop.abort();
    }
    const result = await running;
    turn.end();
    expect(result.status).toBe('cancelled');
    await until(async () => (await alive(mark)).length === 0, { what: `no sleep ${mark} left` });
  });

  it('a command that exits leaves nothing of its group running', async () => {
    const mark = marker();
    const turn = writer.turn();
    const call = turn.toolCall({
      toolName: 'Bash',
      kind: 'execute',
      args: { command: `sleep ${mark} & echo left` },
    });
    const result = await call.run(commandExecutor(options()));
    turn.end();
    expect(result.status).toBe('done');
    await until(async () => (await alive(mark)).length === 0, { what: `no sleep ${mark} left` });
  });

  it('the deadline kills the whole tree and fails the call, saying so', async () => {
    const mark = marker();
    const turn = writer.turn();
    const call = turn.toolCall({
      toolName: 'Bash',
      kind: 'execute',
      args: { command: `sleep ${mark} & sleep ${mark}` },
    });
    const result = await call.run(commandExecutor({ ...options(), timeoutMs: 1_500 }));
    turn.end();
    expect(result.status).toBe('failed');
    expect(result.status === 'failed' && String(result.error)).toMatch(/past its deadline of 1500 ms/);
    await until(async () => (await alive(mark)).length === 0, { what: `no sleep ${mark} left` });
  });
});
