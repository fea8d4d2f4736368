import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runExampleAgent } from '../../packages/cli/src/demo/exampleAgent.js';
import { PermissionGate } from 'happy-session/permissions';
import type { SessionMessage } from 'happy-session';
import { startRelay } from 'happy-session-relay';
import { connect, writeAgentKey } from 'happy-session/node';
import { accountOn, tempDir } from '../transport/helpers.js';
import { ScriptedTerminal, bypassGate, cli, permissionAgent, relayHome } from './helpers.js';
import type { RelayHome } from './helpers.js';

let env: RelayHome;
beforeEach(async () => {
  env = await relayHome();
});
afterEach(async () => {
  await env.close();
});

const homeEnv = (): Record<string, string> => ({ HAPPY_HOME_DIR: env.home, HAPPY_SERVER_URL: env.relay.url });

describe('happy-session watch (live screen)', () => {
  it('shows the turn and the prompt; key 1 answers on the stream and by the permission RPC', async () => {
    const agent = await permissionAgent(env.relay, env.credentials);
    const terminal = new ScriptedTerminal();
    const running = cli(['watch', agent.session.id], { env: homeEnv(), terminal });

    const screen = await terminal.shows('Permission requested: bash');
    expect(screen).toContain(`happy-session watch · Clean the build · ${agent.session.id}`);
    expect(screen).toMatch(/^turn 1 \(open\)$/m);
    expect(screen).toContain('  agent: The build directory is stale; deleting it.');
    expect(screen).toContain('  ? bash: Run `rm -rf build` (waiting for permission)');
    expect(screen).toContain('  args: {"command":"rm -rf build"}');
    expect(screen).toContain('  1) Allow once   2) Allow for session   3) Deny   4) Always deny');
    expect(screen).toContain('Keys: 1-4 answer · q quit');

    terminal.type('1');
    expect(await agent.response).toMatchObject({
      role: 'user',
      type: 'permission-response',
      callId: agent.call.callId,
      optionId: 'allow-once',
    });
    expect(await agent.rpc).toEqual({
      callId: agent.call.callId,
      optionId: 'allow-once',
      requestId: agent.requestId,
    });
    const answered = await terminal.shows('permission RPC delivered');
    expect(answered).toMatch(/Allow once for bash: stream recorded \(seq \d+\) · permission RPC delivered/);
    await terminal.shows(
      'permission: Allow once / Allow for session / Deny / Always deny → Allow once (allow-once)',
    );
    expect(terminal.screen).not.toContain('Permission requested');

    agent.call.end();
    agent.turn.end('completed');
    await terminal.shows('turn 1 (completed)');
    expect(terminal.screen).toContain('  ✓ bash: Run `rm -rf build`');
    terminal.type('q');
    expect((await running).code).toBe(0);
    await agent.session.close();
  });

  it('ignores a number with no option and stops with 130 on Ctrl-C', async () => {
    const agent = await permissionAgent(env.relay, env.credentials);
    const terminal = new ScriptedTerminal();
    const running = cli(['watch', agent.session.id], { env: homeEnv(), terminal });
    await terminal.shows('Permission requested: bash');
    terminal.type('7');
    await terminal.shows('there is no option 7');
    expect(terminal.screen).toContain('Permission requested: bash');
    terminal.type('\x03');
    expect((await running).code).toBe(130);
    await agent.session.close();
  });

  it('stops with 130 when interrupted by SIGINT', async () => {
    const session = await connect({ server: env.relay.url, credentials: env.credentials, title: 'Quiet' });
    const terminal = new ScriptedTerminal();
    const interrupt = new AbortController();
    const running = cli(['watch', session.id], { env: homeEnv(), terminal, interrupt });
    await terminal.shows('(no messages yet)');
    interrupt.abort();
    expect((await running).code).toBe(130);
    await session.close();
  });

  it('redraws as messages arrive: subagents, nested calls and media lines with kind, size and dimensions', async () => {
    const session = await connect({ server: env.relay.url, credentials: env.credentials, title: 'Media' });
    const terminal = new ScriptedTerminal();
    const running = cli(['watch', session.id], { env: homeEnv(), terminal });
    await terminal.shows('(no messages yet)');
    await bypassGate(session);
    await runExampleAgent(session.writer, 'go');
    await terminal.shows('      ✓ read: Read `src/auth/token.ts`');
    expect(terminal.screen).toContain('    subagent Auth review:');

    const turn = session.turn();
    const media = { role: 'agent', turn: turn.id } as const;
    session.writer.append({
      ...media,
      type: 'photo',
      ref: 'up_photo',
      thumbhash: 'AAAA',
      width: 640,
      height: 480,
    });
    session.writer.append({
      ...media,
      type: 'video',
      ref: 'up_video',
      thumbhash: 'AAAA',
      width: 1920,
      height: 1080,
      durationMs: 12_500,
      mimeType: 'video/mp4',
      size: 3 * 1024 * 1024,
    });
    session.writer.append({
      ...media,
      type: 'file',
      ref: 'up_file',
      name: 'report.pdf',
      size: 2048,
      mimeType: 'application/pdf',
    });
    turn.end();
    const screen = await terminal.shows('report.pdf');
    expect(screen).toContain('  agent photo 640x480, thumbhash AAAA (up_photo)');
    expect(screen).toContain('  agent video 1920x1080, 12.5 s, 3.0 MiB, video/mp4 (up_video)');
    expect(screen).toContain('  agent file report.pdf, 2.0 KiB, application/pdf (up_file)');
    terminal.type('q');
    expect((await running).code).toBe(0);
    await session.close();
  });
});

describe('happy-session watch --once and --json', () => {
  it('--once prints the title, the id and the transcript, then exits 0', async () => {
    const session = await connect({ server: env.relay.url, credentials: env.credentials, title: 'Review' });
    await bypassGate(session);
    await runExampleAgent(session.writer, 'go');
    await session.close();
    const run = await cli(['watch', session.id, '--once'], { env: homeEnv() });
    expect(run.code).toBe(0);
    expect(run.out.split('\n')[0]).toBe(`Review · ${session.id}`);
    expect(run.out).toMatch(/^turn 1 \(completed\)$/m);
    expect(run.out).toMatch(/^ {4}subagent Auth review:$/m);
  });

  it('--json follows the stream as {seq, message} lines until Ctrl-C (130)', async () => {
    const session = await connect({ server: env.relay.url, credentials: env.credentials, title: 'JSON' });
    const interrupt = new AbortController();
    let sawEnd!: () => void;
    const ended = new Promise<void>((resolve) => (sawEnd = resolve));
    const running = cli(['watch', session.id, '--json'], {
      env: homeEnv(),
      interrupt,
      onLine: (line) => {
        if ((JSON.parse(line) as { message: SessionMessage }).message.type === 'turn-end') sawEnd();
      },
    });
    const turn = session.turn();
    turn.text('hello');
    turn.end();
    await ended;
    interrupt.abort();
    const run = await running;
    expect(run.code).toBe(130);
    const lines = run.out.split('\n').map((l) => JSON.parse(l) as { seq: number; message: SessionMessage });
    expect(lines.map((l) => [l.seq, l.message.type])).toEqual([
      [1, 'turn-start'],
      [2, 'text'],
      [3, 'turn-end'],
    ]);
    await session.close();
  });

  it('reports a record that does not decrypt and goes on', async () => {
    const session = await connect({ server: env.relay.url, credentials: env.credentials, title: 'Broken' });
    await env.http.request('POST', `/v3/sessions/${session.id}/messages`, {
      messages: [{ content: Buffer.from('not a record').toString('base64'), localId: 'garbage' }],
    });
    session.writer.service('still here');
    await session.close();
    const run = await cli(['watch', session.id, '--once', '--json'], { env: homeEnv() });
    expect(run.code).toBe(0);
    const lines = run.out.split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toMatchObject({ seq: 1, error: { code: expect.stringMatching(/^crypto\./) } });
    expect(lines[1]).toMatchObject({ seq: 2, message: { type: 'service', text: 'still here' } });
  });

  it('fails with 1 for a session of another account', async () => {
    const other = await accountOn(env.relay.url);
    const foreign = await connect({
      server: env.relay.url,
      credentials: other.credentials,
      title: 'Not yours',
    });
    const run = await cli(['watch', foreign.id, '--once'], { env: homeEnv() });
    expect(run.code).toBe(1);
    expect(run.err).toContain(`The account has no session ${foreign.id}.`);
    expect(run.err).toContain('code: transport.not_found');
    await foreign.close();
  });
});

describe('happy-session watch across a relay restart', () => {
  it('--json goes on with the records written after the relay came back', async () => {
    const data = tempDir('happy-restart-');
    let relay = await startRelay({ dataDir: data.path });
    const home = tempDir('happy-home-');
    try {
      const account = await accountOn(relay.url);
      writeAgentKey(home.path, { secret: account.masterSecret, token: account.token });
      const session = await connect({
        server: relay.url,
        credentials: account.credentials,
        title: 'Restart',
      });
      session.writer.service('before');
      const interrupt = new AbortController();
      const seen = new Map<string, () => void>();
      const saw = (text: string) => new Promise<void>((resolve) => seen.set(text, resolve));
      const before = saw('before');
      const after = saw('after');
      const running = cli(['watch', session.id, '--json'], {
        env: { HAPPY_HOME_DIR: home.path, HAPPY_SERVER_URL: relay.url },
        interrupt,
        onLine: (line) => {
          const { message } = JSON.parse(line) as { message: SessionMessage };
          if (message.type === 'service') seen.get(message.text)?.();
        },
      });
      await before;
      const port = relay.port;
      await relay.close();
      relay = await startRelay({ port, dataDir: data.path });
      session.writer.service('after');
      await after;
      interrupt.abort();
      const run = await running;
      expect(run.code).toBe(130);
      const texts = run.out
        .split('\n')
        .map((l) => (JSON.parse(l) as { message: { text?: string } }).message.text);
      expect(texts).toEqual(['before', 'after']);
      await session.close();
    } finally {
      await relay.close();
      data.remove();
      home.remove();
    }
  });
});

describe('happy-session watch and a PermissionGate', () => {
  it('the key answers a gated call.run(): the executor runs with the user’s allow, the RPC finds it resolved', async () => {
    const session = await connect({ server: env.relay.url, credentials: env.credentials, title: 'Gated' });
    await PermissionGate.create({
      writer: session.writer,
      rpc: session.rpc,
      incoming: session.incoming$,
      state: session.state,
      push: session.push,
    });
    const turn = session.turn();
    const call = turn.toolCall({
      toolName: 'bash',
      title: 'Run `make deploy`',
      args: { command: 'make deploy' },
    });
    let ran = false;
    const result = call.run(() => (ran = true));

    const terminal = new ScriptedTerminal();
    const running = cli(['watch', session.id], { env: homeEnv(), terminal });
    await terminal.shows('Permission requested: bash — Run `make deploy`');
    expect(ran).toBe(false);
    terminal.type('1');
    expect(await result).toMatchObject({ status: 'done', decision: { outcome: 'allow' } });
    expect(ran).toBe(true);
    // Usually the gate has the stream answer first; when the RPC overtakes it, the RPC applies.
    await terminal.shows(
      /Allow once for bash: stream recorded \(seq \d+\) · permission RPC (already resolved|applied)/,
    );
    await terminal.shows('✓ bash: Run `make deploy`');
    turn.end();
    terminal.type('q');
    expect((await running).code).toBe(0);
    await session.close();
  });
});
