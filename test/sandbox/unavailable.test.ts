import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isSdkError } from 'happy-session';
import { sandboxedShell } from 'happy-session/sandbox';
import type { SandboxedShell } from 'happy-session/sandbox';
import { gatedWriter, sandboxWorld } from './world.js';
import type { SandboxWorld } from './world.js';
import { until } from '../helpers/until.js';

// Where the sandbox cannot run (here: bubblewrap at a path where there is none), nothing runs
// unconfined: the executor fails with sandbox.unavailable and the gate asks.
let world: SandboxWorld;
let shell: SandboxedShell;
beforeAll(async () => {
  world = await sandboxWorld();
  shell = await sandboxedShell({
    workspaceRoot: world.workspace,
    homeDir: world.home,
    bwrapPath: join(world.dir, 'no-such-bwrap'),
  });
});
afterAll(async () => {
  await shell?.close();
  await world?.remove();
});

describe('no bubblewrap (docs/sandbox.md, "Where it runs")', () => {
  it('the shell says sandbox.unavailable, with the packages to install', () => {
    expect(shell.available).toBe(false);
    expect(shell.policy).toEqual({ available: false });
    expect(shell.unavailable?.code).toBe('sandbox.unavailable');
    expect(shell.unavailable?.hint).toContain('apt-get install bubblewrap socat');
  });

  it('a command fails with sandbox.unavailable and does not run', async () => {
    const target = join(world.outside, 'ran');
    const error = await shell.run(`touch '${target}'`).catch((e: unknown) => e);
    expect(isSdkError(error, 'sandbox.unavailable')).toBe(true);
    expect(await readdir(world.outside)).toEqual([]);
  });

  it('the gate asks for the call instead of running it', async () => {
    const { writer, gate } = await gatedWriter({ workspaceRoot: world.workspace, sandbox: shell.policy });
    const turn = writer.turn();
    const call = turn.toolCall({ toolName: 'Bash', kind: 'execute', args: { command: 'ls' } });
    const running = call.run(shell.execute);
    await until(() => gate.pendingCallIds.includes(call.callId));
    expect(gate.answer({ callId: call.callId, optionId: 'allow-once' })).toMatchObject({
      status: 'applied',
    });
    const result = await running;
    // Allowed by the person, the executor still refuses to run it unconfined.
    expect(result.status).toBe('failed');
    expect(isSdkError((result as { error: unknown }).error, 'sandbox.unavailable')).toBe(true);
    turn.end();
    await writer.close();
  });

  it('a workspace root that is not an absolute directory is refused with sandbox.invalid_options', async () => {
    for (const workspaceRoot of ['relative/dir', join(world.dir, 'missing')]) {
      const error = await sandboxedShell({ workspaceRoot }).catch((e: unknown) => e);
      expect(isSdkError(error, 'sandbox.invalid_options')).toBe(true);
    }
  });
});
