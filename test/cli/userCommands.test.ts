import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FoldedSession } from 'happy-session';
import { fold } from 'happy-session';
import { connect } from 'happy-session/node';
import type { Session, Prompt } from 'happy-session/node';
import { cli, permissionAgent, relayHome } from './helpers.js';
import type { RelayHome } from './helpers.js';

let env: RelayHome;
let agent: Session;
beforeEach(async () => {
  env = await relayHome();
  agent = await connect({ server: env.relay.url, credentials: env.credentials, title: 'Agent' });
});
afterEach(async () => {
  await agent.close();
  await env.close();
});

const run = (...argv: string[]) =>
  cli([...argv, '--server', env.relay.url], { env: { HAPPY_HOME_DIR: env.home } });

async function stored(session: Session): Promise<FoldedSession> {
  return fold(await session.reader.messages());
}

describe('happy-session send', () => {
  it("delivers the prompt to the agent's prompts() as the app does, files first, and leaves the session running", async () => {
    const file = join(env.home, 'data.csv');
    writeFileSync(file, 'a,b\n1,2\n');
    const prompts = agent.prompts();
    const sent = await run('send', agent.id, 'Look at this', '--file', file, '--json');
    expect(sent.code).toBe(0);
    const out = JSON.parse(sent.out) as { session: string; files: Array<Record<string, unknown>> };
    expect(out).toMatchObject({
      session: agent.id,
      files: [{ type: 'file', name: 'data.csv', mimeType: 'text/csv' }],
    });
    expect(sent.err).toMatch(/^data\.csv: probe$/m);
    expect(sent.err).toMatch(/^data\.csv: done, text\/csv, 8 B$/m);

    const prompt = (await prompts.next()).value as Prompt;
    expect(prompt.text).toBe('Look at this');
    expect(prompt.meta).toMatchObject({ sentFrom: 'happy-session' });
    expect(prompt.attachments.map((m) => m.type === 'file' && [m.name, m.mimeType])).toEqual([
      ['data.csv', 'text/csv'],
    ]);
    expect((await agent.fetchMedia(prompt.attachments[0]!)).toString()).toBe('a,b\n1,2\n');
    await prompts.return(undefined);

    const listed = await run('sessions', '--json');
    expect(JSON.parse(listed.out)).toMatchObject([{ id: agent.id, active: true }]);
  });
});

describe('happy-session send, interrupted', () => {
  it('Ctrl-C during an upload exits 130, and the prompt is not sent', async () => {
    const file = join(env.home, 'big.bin');
    writeFileSync(file, Buffer.alloc(64 * 1024, 7));
    const interrupt = new AbortController();
    interrupt.abort();
    const sent = await cli(['send', agent.id, 'never', '--file', file, '--server', env.relay.url], {
      env: { HAPPY_HOME_DIR: env.home },
      interrupt,
    });
    expect(sent.code).toBe(130);
    const texts = (await agent.reader.messages()).filter((m) => m.type === 'text');
    expect(texts).toEqual([]);
  });
});

describe('happy-session stop', () => {
  it("aborts the open turn's signal through the abort RPC", async () => {
    const turn = agent.turn();
    const stopped = await run('stop', agent.id);
    expect(stopped).toMatchObject({ code: 0, out: 'Stopped 1 turn.' });
    expect(turn.signal.aborted).toBe(true);
    expect(String(turn.signal.reason)).toContain('aborted by the user');
    turn.end('cancelled');
  });

  it('fails with cli.agent_unreachable when no agent is connected', async () => {
    await agent.close({ archive: false });
    const stopped = await run('stop', agent.id, '--json');
    expect(stopped.code).toBe(1);
    expect(JSON.parse(stopped.err)).toMatchObject({
      code: 'cli.agent_unreachable',
      message: `The agent of session ${agent.id} is not connected.`,
    });
  });
});

describe('happy-session answer', () => {
  it('lists what waits, answers one by call id on the stream and by RPC, and refuses a call with nothing pending', async () => {
    const waiting = await permissionAgent(env.relay, env.credentials);
    try {
      const listed = await run('answer', waiting.session.id);
      expect(listed.out).toContain(`${waiting.call.callId}  bash: Run \`rm -rf build\``);
      expect(listed.out).toContain(
        'answer with: allow-once (Allow once), allow-session (Allow for session), deny (Deny)',
      );

      const answered = await run('answer', waiting.session.id, waiting.call.callId, 'deny-always');
      expect(answered.code).toBe(0);
      expect(answered.out).toMatch(
        /^Denied always: Run `rm -rf build` \(call \w+\)\. Recorded in the stream \(seq \d+\); the agent took it\.$/,
      );
      expect(await waiting.response).toMatchObject({ optionId: 'deny-always' });
      expect(await waiting.rpc).toEqual({
        callId: waiting.call.callId,
        optionId: 'deny-always',
        requestId: waiting.requestId,
      });

      const again = await run('answer', waiting.session.id, waiting.call.callId, 'allow', '--json');
      expect(again.code).toBe(1);
      expect(JSON.parse(again.err)).toMatchObject({ code: 'session.request_not_pending' });
    } finally {
      await waiting.session.close();
    }
  });

  it('--all answers every pending request once, with the RPC resolving the gate; nothing pending is no failure', async () => {
    const turn = agent.turn();
    const calls = ['one', 'two', 'three'].map((n) =>
      turn.toolCall({ toolName: 'Bash', title: `Run ${n}`, args: { command: `echo ${n}` }, kind: 'execute' }),
    );
    const runs: string[] = [];
    const results = Promise.all(calls.map((call, i) => call.run(() => runs.push(`${i}`))));
    await waitFor(async () => (await stored(agent)).pendingPermissions.length === 3);

    const answered = await run('answer', agent.id, '--all', 'allow-session', '--via', 'rpc', '--json');
    expect(answered.code).toBe(0);
    const lines = answered.out
      .split('\n')
      .map((l) => JSON.parse(l) as { optionId: string; recorded: unknown; rpc: string });
    expect(lines.map((l) => [l.optionId, l.recorded])).toEqual([
      ['allow-session', null],
      ['allow-session', null],
      ['allow-session', null],
    ]);
    expect((await results).map((r) => r.status)).toEqual(['done', 'done', 'done']);
    expect(runs.sort()).toEqual(['0', '1', '2']);
    turn.end();

    const none = await run('answer', agent.id, '--all', 'allow');
    expect(none).toMatchObject({ code: 0, out: 'No permission request is waiting.' });
  });
});

describe('happy-session attach', () => {
  it('adds a turn of the agent with the files, and plain progress lines when stderr is not a terminal', async () => {
    const notes = join(env.home, 'notes.md');
    writeFileSync(notes, '# Notes\n');
    const attached = await run('attach', agent.id, notes, '--text', 'Here are the notes.');
    expect(attached.code).toBe(0);
    expect(attached.out).toBe(`Attached to Agent in a new turn:\n  text/markdown, 8 B`);
    expect(attached.err.split('\n')).toEqual([
      'notes.md: probe',
      'notes.md: encrypt',
      expect.stringMatching(/^notes\.md: upload \(\d+ B\)$/),
      expect.stringMatching(/^notes\.md: upload 0% of \d+ B$/),
      expect.stringMatching(/^notes\.md: upload 100% of \d+ B$/),
      'notes.md: done, text/markdown, 8 B',
    ]);
    const folded = await stored(agent);
    const turn = folded.timeline.find((n) => n.kind === 'turn')!;
    expect(turn.kind === 'turn' && turn.status).toBe('completed');
    expect(turn.kind === 'turn' && turn.children.map((c) => c.kind === 'message' && c.message.type)).toEqual([
      'file',
      'text',
    ]);
  });

  it('appends nothing and exits 1 when a file cannot be sent', async () => {
    const attached = await run('attach', agent.id, join(env.home, 'missing.png'));
    expect(attached.code).toBe(1);
    expect(attached.err).toContain('code: media.unreadable_path');
    expect((await stored(agent)).timeline.find((n) => n.kind === 'turn')).toBeUndefined();
  });
});

async function waitFor(check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 100; i += 1) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('never happened');
}
