import { mkdir, mkdtemp, readdir, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SessionMessage, SessionWriter } from 'happy-session';
import type { PermissionGate } from 'happy-session/permissions';
import { commandExecutor, previewCommand, sandboxedShell, shellPreviewer } from 'happy-session/sandbox';
import type { SandboxedShell } from 'happy-session/sandbox';
import { gatedWriter, sandboxWorld } from './world.js';
import type { SandboxWorld } from './world.js';
import { until } from '../helpers/until.js';

// issue 38, item 2: preview before approval, with real bubblewrap: a call that asks runs first on a
// copy of the workspace with no network; the request carries what it would do; allow lands
// exactly that, deny nothing, a file changed in between asks again.
let world: SandboxWorld;
let shell: SandboxedShell;
let writer: SessionWriter;
let gate: PermissionGate;
let messages: SessionMessage[];

beforeAll(async () => {
  world = await sandboxWorld();
  shell = await sandboxedShell({ workspaceRoot: world.workspace, homeDir: world.home });
  expect(shell.unavailable).toBeUndefined();
  // No sandbox option: every Bash call asks, and is previewed.
  ({ writer, gate, messages } = await gatedWriter({
    workspaceRoot: world.workspace,
    preview: shellPreviewer({ workspaceRoot: world.workspace, homeDir: world.home }),
  }));
});
afterAll(async () => {
  await writer?.close();
  await shell?.close();
  await world?.remove();
});

function requestsOf(callId: string) {
  return messages.flatMap((m) => (m.type === 'permission-request' && m.callId === callId ? [m] : []));
}

async function start(command: string) {
  const turn = writer.turn();
  const call = turn.toolCall({ toolName: 'Bash', kind: 'execute', args: { command } });
  const running = call.run(commandExecutor({ shell }));
  const request = await until(() => requestsOf(call.callId)[0], { what: 'the permission request' });
  return { turn, call, running, request };
}

async function workspaceFiles(): Promise<string[]> {
  return (await readdir(world.workspace)).sort();
}

describe('preview before approval', () => {
  it('the request shows the files; nothing lands before the answer; allow lands exactly the previewed bytes', async () => {
    await writeFile(join(world.workspace, 'notes.txt'), 'one\ntwo\n');
    const before = await workspaceFiles();
    const { turn, call, running, request } = await start(
      "printf 'three\\n' >> notes.txt; printf 'made in the preview\\n' > made.txt; echo did-it",
    );
    expect(request.preview).toMatchObject({
      applicable: true,
      exitCode: 0,
      network: [],
      processesLeft: 0,
      outputTail: 'did-it\n',
      files: [
        { path: 'made.txt', change: 'created', size: 20, diff: '@@ line 1 @@\n+made in the preview' },
        { path: 'notes.txt', change: 'changed', size: 14, diff: '@@ line 3 @@\n+three' },
      ],
    });
    expect(await workspaceFiles()).toEqual(before);
    expect(await readFile(join(world.workspace, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');
    gate.answer({ callId: call.callId, optionId: 'allow-once' });
    const result = await running;
    turn.end();
    expect(result.status).toBe('done');
    expect(await readFile(join(world.workspace, 'notes.txt'), 'utf8')).toBe('one\ntwo\nthree\n');
    expect(await readFile(join(world.workspace, 'made.txt'), 'utf8')).toBe('made in the preview\n');
    expect(messages).toContainEqual(
      expect.objectContaining({
        type: 'service',
        parentId: call.callId,
        text: 'Applied the previewed change: 2 file(s), exactly as previewed.',
      }),
    );
  });

  it('deny lands nothing', async () => {
    const before = await workspaceFiles();
    const { turn, call, running, request } = await start('rm notes.txt; echo x > denied.txt');
    expect(request.preview?.files.map((f) => [f.path, f.change])).toEqual([
      ['denied.txt', 'created'],
      ['notes.txt', 'deleted'],
    ]);
    gate.answer({ callId: call.callId, optionId: 'deny' });
    const result = await running;
    turn.end();
    expect(result.status).toBe('denied');
    expect(await workspaceFiles()).toEqual(before);
  });

  it('the preview reads nothing of the home: its output goes into the request (issue 35, class 4)', async () => {
    // A home outside the temp directory, which the preview replaces with its own.
    const home = await realpath(await mkdtemp('/var/tmp/hs-preview-home-'));
    try {
      await mkdir(join(home, '.someunknowntool'), { recursive: true });
      await writeFile(join(home, '.someunknowntool', 'token'), 'SECRET of a tool nobody listed\n');
      await writeFile(join(home, 'secret.txt'), 'SECRET at the home root\n');
      await writeFile(join(world.workspace, 'plain.txt'), 'plain\n');
      const run = await previewCommand({
        workspaceRoot: world.workspace,
        homeDir: home,
        command: 'cat ~/.someunknowntool/token ~/secret.txt; grep -r SECRET ~; cat plain.txt',
      });
      await run.discard();
      expect(run.preview.outputTail).not.toMatch(/SECRET/);
      // Positive control: the same preview reads the workspace.
      expect(run.preview.outputTail).toMatch(/plain\n$/);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });

  it('a file changed between the preview and the allow asks again with a fresh preview', async () => {
    await writeFile(join(world.workspace, 'counter.txt'), '1\n');
    const { turn, call, running, request } = await start('echo appended >> counter.txt');
    expect(request.preview?.files).toEqual([
      { path: 'counter.txt', change: 'changed', size: 11, diff: '@@ line 2 @@\n+appended' },
    ]);
    await writeFile(join(world.workspace, 'counter.txt'), '2\n');
    gate.answer({ callId: call.callId, optionId: 'allow-once' });
    const second = await until(() => requestsOf(call.callId)[1], { what: 'a second request' });
    // The fresh preview starts from what the file holds now; nothing landed from the first.
    expect(await readFile(join(world.workspace, 'counter.txt'), 'utf8')).toBe('2\n');
    expect(second.preview?.files[0]?.diff).toBe('@@ line 2 @@\n+appended');
    gate.answer({ callId: call.callId, optionId: 'allow-once' });
    const result = await running;
    turn.end();
    expect(result.status).toBe('done');
    expect(await readFile(join(world.workspace, 'counter.txt'), 'utf8')).toBe('2\nappended\n');
  });

  it('a network attempt shows in the preview, which cannot be applied: allowed, it runs again for real', async () => {
    const { turn, call, running, request } = await start(
      'echo fetched > fetched.txt; curl -sS --max-time 5 https://example.com/ || true',
    );
    expect(request.preview).toMatchObject({ applicable: false, network: ['example.com:443'] });
    expect(request.preview?.reason).toMatch(/tried the network \(example\.com:443\).*runs again, for real/);
    gate.answer({ callId: call.callId, optionId: 'allow-once' });
    const result = await running;
    turn.end();
    expect(result.status).toBe('done');
    expect(messages).toContainEqual(
      expect.objectContaining({
        type: 'service',
        parentId: call.callId,
        text: expect.stringMatching(/^Runs again, for real/),
      }),
    );
    // The real run, in the sandbox: its file write lands through it, not through the preview.
    expect(await readFile(join(world.workspace, 'fetched.txt'), 'utf8')).toBe('fetched\n');
  });
});
