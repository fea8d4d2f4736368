import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadShellParser, type ShellParser } from 'happy-session/permissions';
import { bash, judge } from '../helpers.js';
import { describeEachWorld } from '../gate/worlds.js';

/**
 * Issue 35, class 3: the person's edit (`updatedInput`) is judged as any line under the
 * configuration, as one nobody will be asked about again (docs/permissions-policy.md, "Edited
 * arguments are judged"). Deny rules are absolute: an edit they cannot be checked on — a line
 * outside the grammar (`coproc { … }`, `time { … }`, `${_@P}`) or a command that may run code
 * (`jobs -x`, `setsid`, `stdbuf`) — is refused over the v2 and the legacy body alike, and real
 * bash shows the file survives. A harmless edit still applies (positive control).
 */

let shell: ShellParser;
let dir: string;
beforeAll(async () => {
  shell = await loadShellParser();
  dir = mkdtempSync(join(tmpdir(), 'edited-input-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Edits that remove `precious` when bash runs them, none of them a plain `rm` line. */
const REMOVES = [
  'coproc { rm -f precious; }; wait',
  'time { rm -f precious; }',
  'time { rm -f precious; } 2>/dev/null',
  '! { rm -f precious; }',
  ": '$(rm -f precious)'; echo ${_@P}",
  'jobs -x rm -f precious',
  'setsid -w rm -f precious',
  'stdbuf -o0 rm -f precious',
  'nohup rm -f precious',
  "eval 'r''m -f precious'",
];

/** Runs `line` with real bash in a fresh directory holding `precious`; true when it is gone. */
function removesWithBash(line: string): boolean {
  const work = mkdtempSync(join(dir, 'run-'));
  writeFileSync(join(work, 'precious'), 'keep');
  spawnSync('bash', ['-c', line], { cwd: work, stdio: 'ignore', timeout: 10_000 });
  return !existsSync(join(work, 'precious'));
}

describe('each edit really removes the file when bash runs it', () => {
  it.each(REMOVES)('%j removes precious', (line) => {
    expect(removesWithBash(line)).toBe(true);
  });
  it('a harmless edit does not (positive control)', () => {
    expect(removesWithBash('echo bye')).toBe(false);
  });
});

describe('the policy judges an edit as a line nobody will be asked about again', () => {
  const modes = ['default', 'acceptEdits', 'safe-yolo', 'read-only', 'bypassPermissions', 'dontAsk'] as const;
  it.each(REMOVES)('%j is denied as an edit under Bash(rm:*), in every mode', (line) => {
    for (const mode of modes) {
      expect(
        judge(shell, { deny: ['Bash(rm:*)'], mode }, { ...bash(line), edited: true }).verdict,
        mode,
      ).toBe('deny');
    }
  });
  it.each(['echo bye', 'ls -la', 'git status'])('%j is not denied as an edit (positive control)', (line) => {
    for (const mode of modes.filter((m) => m !== 'dontAsk')) {
      expect(
        judge(shell, { deny: ['Bash(rm:*)'], mode }, { ...bash(line), edited: true }).verdict,
        mode,
      ).not.toBe('deny');
    }
  });
});

describeEachWorld('an edited Bash call under a deny rule, over %s', (open) => {
  it('every hostile edit is refused by the v2 and the legacy body; a harmless edit runs, and precious survives', async () => {
    const work = mkdtempSync(join(dir, 'gate-'));
    writeFileSync(join(work, 'precious'), 'keep');
    const world = await open({ rules: { deny: ['Bash(rm:*)'] } });
    const turn = world.agent.writer.turn();
    const call = turn.toolCall({ toolName: 'Bash', args: { command: 'echo hi' } });
    const ran: string[] = [];
    const running = call.run((args) => {
      const command = String(args.command);
      ran.push(command);
      return spawnSync('bash', ['-c', command], { cwd: work, encoding: 'utf8', timeout: 10_000 }).stdout;
    });
    await world.requested(call.callId);
    for (const command of REMOVES) {
      expect(
        await world.rpc({ id: call.callId, approved: true, updatedInput: { command } }),
        `legacy ${command}`,
      ).toMatchObject({ status: 'error', code: 'permissions.invalid_updated_input' });
      expect(
        await world.rpc({ callId: call.callId, optionId: 'allow-once', updatedInput: { command } }),
        `v2 ${command}`,
      ).toMatchObject({ status: 'error', code: 'permissions.invalid_updated_input' });
    }
    expect(world.agent.gate.pendingCallIds).toEqual([call.callId]);
    expect(
      await world.rpc({ callId: call.callId, optionId: 'allow-once', updatedInput: { command: 'echo bye' } }),
    ).toMatchObject({ status: 'applied' });
    expect(await running).toMatchObject({
      status: 'done',
      decision: { updatedInput: { command: 'echo bye' } },
    });
    expect(ran).toEqual(['echo bye']);
    expect(existsSync(join(work, 'precious'))).toBe(true);
    turn.end();
  });

  it('the legacy body applies a harmless edit too (positive control)', async () => {
    const world = await open({ rules: { deny: ['Bash(rm:*)'] } });
    const turn = world.agent.writer.turn();
    const call = turn.toolCall({ toolName: 'Bash', args: { command: 'echo hi' } });
    const ran: unknown[] = [];
    const running = call.run((args) => void ran.push(args.command));
    await world.requested(call.callId);
    expect(
      await world.rpc({ id: call.callId, approved: true, updatedInput: { command: 'ls -la' } }),
    ).toMatchObject({ status: 'applied' });
    expect(await running).toMatchObject({ status: 'done' });
    expect(ran).toEqual(['ls -la']);
    turn.end();
  });
});
