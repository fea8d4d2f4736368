import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, type PolicyCall, type ShellParser } from 'happy-session/permissions';
import { judge } from '../helpers.js';
import { describeEachWorld } from '../gate/worlds.js';

/**
 * Issues 35 classes 1 and 3, a red-team set: a tool that carries a command line under more than
 * one key (docs/permissions-policy.md, "Deny rules see the real command"). `{command: "echo hi",
 * cmd: "rm -f precious"}` used to be judged by its `command` alone, while a tool that reads `cmd`
 * ran rm; and a person's edit that only adds `cmd` was applied under a deny rule. Two different
 * lines cannot be checked: denied where nobody would be asked, an edit refused over the v2 and
 * the legacy body. The same line under both keys, and one key alone, are judged as before.
 */

let shell: ShellParser;
let dir: string;
beforeAll(async () => {
  shell = await loadShellParser();
  dir = mkdtempSync(join(tmpdir(), 'carried-lines-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DENY = { deny: ['Bash(rm:*)'] };

/** A shell tool that runs `cmd` when it has one, else `command` (as some do), with real bash. */
function runTool(args: Readonly<Record<string, unknown>>, cwd: string): void {
  const line = typeof args.cmd === 'string' ? args.cmd : String(args.command);
  spawnSync('bash', ['-c', line], { cwd, stdio: 'ignore', timeout: 10_000 });
}

const TWO_LINES: PolicyCall[] = [
  { toolName: 'CodexBash', args: { command: 'echo hi', cmd: 'rm -f precious' } },
  { toolName: 'mcp__shell__run', kind: 'execute', args: { command: 'ls', cmd: 'rm -f precious' } },
  { toolName: 'terminal', kind: 'other', args: { cmd: 'rm -f precious', argv: ['echo', 'hi'] } },
  { toolName: 'CodexBash', args: { command: ['echo', 'hi'], cmd: 'rm -f precious' } },
];

describe('real bash: the tool runs the key it reads', () => {
  it('{command: "echo hi", cmd: "rm -f precious"} removes the file', () => {
    const work = mkdtempSync(join(dir, 'run-'));
    writeFileSync(join(work, 'precious'), 'keep');
    runTool({ command: 'echo hi', cmd: 'rm -f precious' }, work);
    expect(existsSync(join(work, 'precious'))).toBe(false);
  });
  it('{command: "echo hi"} does not (positive control)', () => {
    const work = mkdtempSync(join(dir, 'run-'));
    writeFileSync(join(work, 'precious'), 'keep');
    runTool({ command: 'echo hi' }, work);
    expect(existsSync(join(work, 'precious'))).toBe(true);
  });
});

describe('two different lines under Bash(rm:*)', () => {
  it.each(TWO_LINES.map((c) => [JSON.stringify(c.args), c] as const))(
    '%s is denied in bypassPermissions and as an edit; in default, denied for an execute tool (the rule matches the string it carries), asked otherwise',
    (_name, call) => {
      expect(judge(shell, { ...DENY, mode: 'bypassPermissions' }, call).verdict).toBe('deny');
      expect(judge(shell, { ...DENY, mode: 'default' }, { ...call, edited: true }).verdict).toBe('deny');
      expect(judge(shell, { ...DENY, mode: 'default' }, call).verdict).toBe(
        call.kind === 'other' ? 'ask' : 'deny',
      );
    },
  );
  it.each([
    { toolName: 'CodexBash', args: { command: 'echo hi' } },
    { toolName: 'CodexBash', args: { command: 'echo hi', cmd: 'echo hi' } },
    { toolName: 'mcp__shell__run', kind: 'execute', args: { cmd: 'ls -la' } },
    { toolName: 'terminal', kind: 'other', args: { argv: ['echo', 'hi'], timeout: 5 } },
  ] as PolicyCall[])('$args runs in bypassPermissions (positive control)', (call) => {
    expect(judge(shell, { ...DENY, mode: 'bypassPermissions' }, call).verdict).toBe('allow');
  });
});

describeEachWorld('an edit that adds a second command line, over %s', (open) => {
  it('is refused by the v2 and the legacy body; a harmless edit applies, and precious survives', async () => {
    const work = mkdtempSync(join(dir, 'gate-'));
    writeFileSync(join(work, 'precious'), 'keep');
    const world = await open({ rules: DENY });
    const turn = world.agent.writer.turn();
    const call = turn.toolCall({ toolName: 'CodexBash', args: { command: 'echo hi' } });
    const ran: unknown[] = [];
    const running = call.run((args) => {
      ran.push(args);
      runTool(args, work);
    });
    await world.requested(call.callId);
    const updatedInput = { cmd: 'rm -f precious' };
    expect(await world.rpc({ id: call.callId, approved: true, updatedInput })).toMatchObject({
      status: 'error',
      code: 'permissions.invalid_updated_input',
    });
    expect(await world.rpc({ callId: call.callId, optionId: 'allow-once', updatedInput })).toMatchObject({
      status: 'error',
      code: 'permissions.invalid_updated_input',
    });
    expect(world.agent.gate.pendingCallIds).toEqual([call.callId]);
    expect(
      await world.rpc({ callId: call.callId, optionId: 'allow-once', updatedInput: { cmd: 'echo hi' } }),
    ).toMatchObject({ status: 'applied' });
    expect(await running).toMatchObject({ status: 'done' });
    expect(ran).toEqual([{ command: 'echo hi', cmd: 'echo hi' }]);
    expect(existsSync(join(work, 'precious'))).toBe(true);
    turn.end();
  });
});
