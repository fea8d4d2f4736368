import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionGateOptions } from 'happy-session/permissions';
import { memoryWorld } from '../gate/worlds.js';
import type { GateWorld } from '../gate/worlds.js';

/**
 * An allow a person gave while no agent ran is carried over to one resumed call
 * (docs/recovery.md, "Resuming a call"), and it is held to the configuration the successor runs
 * under: deny rules are absolute, a line they cannot be checked on is refused as for an edit, and
 * a call that ended or was stopped before it ran is not run by it. Each row abandons the first
 * agent's gate as a crash does and starts a successor's gate on the stream it left; the executor
 * runs the command with real bash in a directory holding `precious`. The controls beside them run
 * the carried call once: a gate that refuses everything fails them. The same with real processes,
 * kill -9 and the relay: test/session/successor.test.ts.
 */

type Config = Omit<PermissionGateOptions, 'writer' | 'rpc' | 'incoming' | 'state' | 'push' | 'history'>;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'carried-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

interface Carried {
  readonly status: string;
  readonly ran: readonly string[];
  readonly survives: boolean;
  readonly carried: boolean;
}

/**
 * A first agent asks for `command`; while its input is held (it is dying), the person allows it
 * by a stream record naming the request; the first agent is abandoned, a successor starts with
 * `successor`'s configuration and resumes the interrupted call, `before` acting on it first.
 */
async function carry(
  world: GateWorld,
  command: string,
  successor: Config,
  options: { edit?: string; before?: (call: { end(): void }, turn: { abort(): void }) => void } = {},
): Promise<Carried> {
  const work = mkdtempSync(join(dir, 'run-'));
  writeFileSync(join(work, 'precious'), 'keep');
  const turn = world.agent.writer.turn();
  const first = turn.toolCall({ toolName: 'Bash', args: { command } });
  void first.run(() => undefined);
  await world.requested(first.callId);
  const release = world.holdStream();
  const request = (await world.messages()).find(
    (m) => m.type === 'permission-request' && m.callId === first.callId,
  )!;
  await world.streamAnswer(first.callId, 'allow-once', {
    requestId: request.id,
    ...(options.edit !== undefined ? { updatedInput: { command: options.edit } } : {}),
  });
  const agent = await world.restart(successor, { abandon: true });
  release();
  const [interrupted] = agent.gate.interrupted;
  const next = agent.writer.turn();
  const resumed = next.toolCall({ toolName: 'Bash', args: { command } });
  const carried = interrupted !== undefined && agent.gate.carryOver(resumed, interrupted);
  options.before?.(resumed, next);
  const ran: string[] = [];
  const asked = new Promise<'asked'>((resolve) => {
    const sub = agent.writer.messages$.subscribe((m) => {
      if (m.type === 'permission-request' && m.callId === resumed.callId) {
        sub.unsubscribe();
        resolve('asked');
      }
    });
  });
  const outcome = await Promise.race([
    resumed.run((args) => {
      ran.push(String(args.command));
      spawnSync('bash', ['-c', String(args.command)], { cwd: work, stdio: 'ignore', timeout: 10_000 });
    }),
    asked,
  ]);
  if (outcome === 'asked') await agent.gate.answer({ callId: resumed.callId, optionId: 'deny' });
  next.end();
  return {
    status: outcome === 'asked' ? 'asked' : outcome.status,
    ran,
    survives: existsSync(join(work, 'precious')),
    carried,
  };
}

const hostile: ReadonlyArray<{
  readonly name: string;
  readonly command: string;
  readonly successor: Config;
  readonly edit?: string;
  readonly before?: (call: { end(): void }, turn: { abort(): void }) => void;
  readonly status: string;
}> = [
  {
    name: 'the successor denies the command by a rule',
    command: 'rm -f precious',
    successor: { rules: { deny: ['Bash(rm:*)'] } },
    status: 'denied',
  },
  {
    name: 'the successor denies a command the line runs through a wrapper',
    command: 'nice rm -f precious',
    successor: { rules: { deny: ['Bash(rm:*)'] } },
    status: 'denied',
  },
  {
    name: 'the successor has a deny rule it cannot check on the line',
    command: 'coproc { rm -f precious; }; wait',
    successor: { rules: { deny: ['Bash(rm:*)'] } },
    status: 'denied',
  },
  {
    name: 'the successor denies the tool whole',
    command: 'rm -f precious',
    successor: { rules: { deny: ['Bash'] } },
    status: 'denied',
  },
  {
    name: "the person's edit given meanwhile is denied by the successor's rule",
    command: 'echo hi',
    edit: 'rm -f precious',
    successor: { rules: { deny: ['Bash(rm:*)'] } },
    status: 'asked',
  },
  {
    name: 'the resumed call ended before it ran',
    command: 'rm -f precious',
    successor: {},
    before: (call) => call.end(),
    status: 'cancelled',
  },
  {
    name: 'the turn was stopped before the resumed call ran',
    command: 'rm -f precious',
    successor: {},
    before: (_call, turn) => turn.abort(),
    status: 'cancelled',
  },
];

const controls: ReadonlyArray<{ readonly name: string; readonly successor: Config }> = [
  { name: 'the same configuration', successor: {} },
  { name: 'a deny rule about another command', successor: { rules: { deny: ['Bash(git push:*)'] } } },
  {
    name: 'an ask rule about the command (the person answered)',
    successor: { rules: { ask: ['Bash(rm:*)'] } },
  },
];

describe('an allow carried over to a resumed call', () => {
  const opened: GateWorld[] = [];
  afterEach(async () => {
    for (const world of opened.splice(0)) await world.close();
  });
  const open = async (): Promise<GateWorld> => {
    const world = await memoryWorld.create();
    opened.push(world);
    return world;
  };
  it.each(hostile)('$name: nothing runs', async ({ command, successor, edit, before, status }) => {
    const world = await open();
    const result = await carry(world, command, successor, {
      ...(edit !== undefined ? { edit } : {}),
      ...(before ? { before } : {}),
    });
    expect(result.ran).toEqual([]);
    expect(result.survives).toBe(true);
    expect(result.status).toBe(status);
  });

  describe('positive controls', () => {
    it.each(controls)(
      '$name: the carried allow runs the call once, without asking',
      async ({ successor }) => {
        const world = await open();
        const result = await carry(world, 'rm -f precious', successor);
        expect(result).toEqual({ status: 'done', ran: ['rm -f precious'], survives: false, carried: true });
      },
    );
  });
});
