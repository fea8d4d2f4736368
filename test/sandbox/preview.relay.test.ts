import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PermissionRequestMessage } from 'happy-session/protocol';
import { connect } from 'happy-session/node';
import type { Session } from 'happy-session/node';
import { commandExecutor, sandboxedShell, shellPreviewer } from 'happy-session/sandbox';
import type { SandboxedShell } from 'happy-session/sandbox';
import { READING_ORDERS, appReads } from '../helpers/happyAppModel.js';
import type { AppRecord } from '../helpers/happyAppModel.js';
import { until } from '../helpers/until.js';
import { AppClient } from '../transport/appClient.js';
import { cli, relayHome } from '../cli/helpers.js';
import type { RelayHome } from '../cli/helpers.js';
import { sandboxWorld } from './world.js';
import type { SandboxWorld } from './world.js';

// issue 38, item 2, end to end: real bubblewrap runs the preview, the embedded relay carries the
// request to the person on real sockets, and the person reads and answers it with
// `happy-session answer` (v2) or as today's app does (v1).
let env: RelayHome;
let world: SandboxWorld;
let shell: SandboxedShell;
let agent: Session;

const homeEnv = (): Record<string, string> => ({ HAPPY_HOME_DIR: env.home, HAPPY_SERVER_URL: env.relay.url });
const sha256 = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

beforeAll(async () => {
  env = await relayHome();
  world = await sandboxWorld();
  shell = await sandboxedShell({ workspaceRoot: world.workspace, homeDir: world.home });
  expect(shell.unavailable).toBeUndefined();
  agent = await connect({
    server: env.relay.url,
    credentials: env.credentials,
    title: 'Preview over the relay',
    format: 'v2',
    shutdownSignals: false,
    permissions: {
      workspaceRoot: world.workspace,
      preview: shellPreviewer({ workspaceRoot: world.workspace, homeDir: world.home }),
    },
  });
}, 60_000);
afterAll(async () => {
  await agent?.close({ archive: false });
  await shell?.close();
  await world?.remove();
  await env?.close();
});

/** The pending requests as the person's `answer --json` lists them, read through the relay. */
async function pendingOverRelay(): Promise<PermissionRequestMessage[]> {
  const listed = await cli(['answer', agent.id, '--json'], { env: homeEnv() });
  expect(listed.code).toBe(0);
  return (JSON.parse(listed.out) as Array<PermissionRequestMessage & { kind: string }>).filter(
    (r) => r.kind === 'permission',
  );
}

async function requestOverRelay(callId: string, notId?: string): Promise<PermissionRequestMessage> {
  return until(async () => (await pendingOverRelay()).find((r) => r.callId === callId && r.id !== notId), {
    // A bound on a hung test: the preview copies the workspace and starts bubblewrap first.
    timeoutMs: 60_000,
    what: `the request of ${callId} over the relay`,
  });
}

async function answer(callId: string, choice: 'allow' | 'deny'): Promise<void> {
  const sent = await cli(['answer', agent.id, callId, choice], { env: homeEnv() });
  expect(sent.code).toBe(0);
}

function start(command: string) {
  const turn = agent.turn();
  const call = turn.toolCall({ toolName: 'Bash', kind: 'execute', args: { command } });
  const running = call.run(commandExecutor({ shell }));
  return { turn, call, running };
}

const workspaceFiles = async (): Promise<string[]> => (await readdir(world.workspace)).sort();

describe('preview before approval, over a real relay', () => {
  it('the person sees the files; nothing lands before the answer; allow lands exactly the previewed bytes', async () => {
    await writeFile(join(world.workspace, 'notes.txt'), 'one\ntwo\n');
    const before = await workspaceFiles();
    const { turn, call, running } = start(
      "printf 'three\\n' >> notes.txt; printf 'made in the preview\\n' > made.txt; echo did-it",
    );
    const request = await requestOverRelay(call.callId);
    expect(request.preview).toMatchObject({
      applicable: true,
      exitCode: 0,
      network: [],
      outputTail: 'did-it\n',
      files: [
        { path: 'made.txt', change: 'created', size: 20, diff: '@@ line 1 @@\n+made in the preview' },
        { path: 'notes.txt', change: 'changed', size: 14, diff: '@@ line 3 @@\n+three' },
      ],
    });
    // The listing a person reads shows the files with their sizes, the diffs and the output.
    const listed = await cli(['answer', agent.id], { env: homeEnv() });
    expect(listed.out).toContain('  Preview (ran on a copy of the workspace, no network): exit 0');
    expect(listed.out).toContain('    created made.txt (20 B)');
    expect(listed.out).toContain('    changed notes.txt (14 B)');
    expect(listed.out).toContain('  +three');
    expect(listed.out).toContain('  On allow, exactly these file changes land.');
    expect(listed.out).toContain('  did-it');
    // The transcript of `watch --once` shows the same, under the waiting call.
    const watched = await cli(['watch', agent.id, '--once'], { env: homeEnv() });
    expect(watched.out).toContain('permission: ');
    expect(watched.out).toContain('Preview (ran on a copy of the workspace, no network): exit 0');
    expect(watched.out).toContain('created made.txt (20 B)');
    expect(watched.out).toContain('+three');
    // Nothing landed while the request waits.
    expect(await workspaceFiles()).toEqual(before);
    expect(await readFile(join(world.workspace, 'notes.txt'), 'utf8')).toBe('one\ntwo\n');

    await answer(call.callId, 'allow');
    const result = await running;
    turn.end();
    expect(result.status).toBe('done');
    // Exactly the previewed bytes: the sizes the preview showed, and the bytes its diffs said.
    const made = await readFile(join(world.workspace, 'made.txt'));
    const notes = await readFile(join(world.workspace, 'notes.txt'));
    expect([made.length, notes.length]).toEqual(request.preview!.files.map((f) => f.size));
    expect(sha256(made)).toBe(sha256(Buffer.from('made in the preview\n')));
    expect(sha256(notes)).toBe(sha256(Buffer.from('one\ntwo\nthree\n')));
    expect(await workspaceFiles()).toEqual([...before, 'made.txt'].sort());
  });

  it('deny lands nothing', async () => {
    const before = await workspaceFiles();
    const notes = await readFile(join(world.workspace, 'notes.txt'));
    const { turn, call, running } = start('rm notes.txt; echo x > denied.txt');
    const request = await requestOverRelay(call.callId);
    expect(request.preview?.files.map((f) => [f.path, f.change, f.size])).toEqual([
      ['denied.txt', 'created', 2],
      ['notes.txt', 'deleted', 14],
    ]);
    await answer(call.callId, 'deny');
    const result = await running;
    turn.end();
    expect(result.status).toBe('denied');
    expect(await workspaceFiles()).toEqual(before);
    expect(await readFile(join(world.workspace, 'notes.txt'))).toEqual(notes);
  });

  it('a file changed between the preview and the allow asks the person again, with a fresh preview', async () => {
    await writeFile(join(world.workspace, 'counter.txt'), '1\n');
    const { turn, call, running } = start('echo appended >> counter.txt');
    const first = await requestOverRelay(call.callId);
    expect(first.preview?.files).toEqual([
      { path: 'counter.txt', change: 'changed', size: 11, diff: '@@ line 2 @@\n+appended' },
    ]);
    await writeFile(join(world.workspace, 'counter.txt'), '22\n');
    await answer(call.callId, 'allow');
    const second = await requestOverRelay(call.callId, first.id);
    // Nothing of the first preview landed; the fresh one starts from what the file holds now.
    expect(await readFile(join(world.workspace, 'counter.txt'), 'utf8')).toBe('22\n');
    expect(second.preview?.files).toEqual([
      { path: 'counter.txt', change: 'changed', size: 12, diff: '@@ line 2 @@\n+appended' },
    ]);
    await answer(call.callId, 'allow');
    const result = await running;
    turn.end();
    expect(result.status).toBe('done');
    expect(await readFile(join(world.workspace, 'counter.txt'), 'utf8')).toBe('22\nappended\n');
  });

  it('a network attempt shows in the preview, with the note that allow runs it again for real', async () => {
    const { turn, call, running } = start('curl -sS --max-time 5 https://example.com/ || true');
    const request = await requestOverRelay(call.callId);
    expect(request.preview).toMatchObject({ applicable: false, network: ['example.com:443'] });
    const listed = await cli(['answer', agent.id], { env: homeEnv() });
    expect(listed.out).toContain('  network tried (refused): example.com:443');
    expect(listed.out).toMatch(
      / {2}Outside the workspace: it tried the network \(example\.com:443\).*runs again, for real/,
    );
    await answer(call.callId, 'deny');
    expect((await running).status).toBe('denied');
    turn.end();
  });
});

describe("preview before approval in today's app (v1)", () => {
  it("shows the preview's summary as text beside the pending request; the app's allow lands it", async () => {
    const app = await AppClient.open(env.relay.url, env.http, env.token, env.masterSecret);
    const v1 = await connect({
      server: env.relay.url,
      credentials: env.credentials,
      title: 'Preview in the app',
      format: 'v1',
      shutdownSignals: false,
      permissions: {
        workspaceRoot: world.workspace,
        preview: shellPreviewer({ workspaceRoot: world.workspace, homeDir: world.home }),
      },
    });
    try {
      const turn = v1.turn();
      const call = turn.toolCall({
        toolName: 'Bash',
        kind: 'execute',
        args: { command: "printf 'from the app\\n' > app.txt" },
      });
      const running = call.run(commandExecutor({ shell }));
      const key = await app.keyOf(v1.id);
      const records = async (): Promise<AppRecord[]> => {
        const { messages } = await env.http.request<{
          messages: { seq: number; createdAt: number; content: { c: string } }[];
        }>('GET', `/v3/sessions/${v1.id}/messages?after_seq=0&limit=500`);
        return Promise.all(
          messages.map(async (m) => ({
            record: await app.decrypt(m.content.c, key),
            seq: m.seq,
            createdAt: m.createdAt,
          })),
        );
      };
      const agentState = async () =>
        (await app.decrypt((await app.session(v1.id)).agentState, key)) as {
          requests?: Record<string, { toolUseId?: string }>;
        } | null;
      const requestId = await until(
        async () =>
          Object.entries((await agentState())?.requests ?? {}).find(
            ([, r]) => r.toolUseId === call.callId,
          )?.[0],
        { timeoutMs: 60_000, what: 'the pending request in agentState' },
      );
      const stored = await until(
        async () => {
          const all = await records();
          return all.some((r) => JSON.stringify(r.record).includes('Preview (ran on')) ? all : undefined;
        },
        { what: "the preview's text record" },
      );
      for (const order of READING_ORDERS) {
        const screen = appReads(stored, {}, order);
        const texts = screen.rows.flatMap((r) => (r.kind === 'agent-text' ? [r.text] : []));
        const summary = texts.find((t) =>
          t.startsWith('Preview (ran on a copy of the workspace, no network): exit 0'),
        );
        expect({ order, summary }).toEqual({
          order,
          summary: expect.stringContaining('  created app.txt (13 B)\n'),
        });
        expect(summary!.length).toBeLessThanOrEqual(2_000);
      }
      expect(await readdir(world.workspace)).not.toContain('app.txt');
      await app.call(v1.id, 'permission', { id: requestId, approved: true }, key);
      expect((await running).status).toBe('done');
      turn.end();
      expect(await readFile(join(world.workspace, 'app.txt'), 'utf8')).toBe('from the app\n');
    } finally {
      await v1.close({ archive: false });
      app.close();
    }
  });
});
