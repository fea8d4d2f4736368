import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Account, connect } from 'happy-session/node';
import { fold } from 'happy-session';
import type { FoldedNode, SessionMessage } from 'happy-session';
import type { PermissionRequestMessage } from 'happy-session/protocol';
import { relayHome, spawnCli } from './helpers.js';
import type { RelayHome } from './helpers.js';
import {
  callsOf,
  happySessionBin,
  runInProcess,
  sessionIdIn,
  storedMessages,
  textsOf,
} from './runHelpers.js';

let env: RelayHome;
/** A directory with a `happy-session` executable, put first on the PATH of every run. */
let bin: { dir: string; remove: () => void };

beforeAll(() => {
  bin = happySessionBin();
});
afterAll(() => bin.remove());
beforeEach(async () => {
  env = await relayHome();
});
afterEach(async () => {
  await env.close();
});

const runEnv = (): Record<string, string> => ({
  HAPPY_HOME_DIR: env.home,
  HAPPY_SERVER_URL: env.relay.url,
  PATH: `${bin.dir}:${process.env.PATH ?? ''}`,
});

const run = (argv: string[], onError?: (line: string) => void) => runInProcess(argv, runEnv(), onError);

const stored = (sessionId: string): Promise<SessionMessage[]> =>
  storedMessages(env.relay.url, env.credentials, sessionId);

describe('happy-session run', () => {
  it('streams the output into a step, ends it with the exit status and the last lines, and exits with it', async () => {
    const result = await run([
      '--title',
      'Build',
      '--',
      'sh',
      '-c',
      'printf "\\033[31mred\\033[0m\\n"; printf "10%%\\r50%%\\r100%%\\n"; echo out; echo err >&2; exit 3',
    ]);
    expect(result.code).toBe(3);
    // The terminal still sees the command's own bytes.
    expect(result.out).toBe('\x1b[31mred\x1b[0m\n10%\r50%\r100%\nout\n');
    expect(result.err).toBe('err\n');

    const messages = await stored(result.sessionId);
    expect(messages.map((m) => m.type)).toEqual([
      'turn-start',
      'tool-call-start',
      'text',
      'tool-call-end',
      'turn-end',
    ]);
    const [, start, text, end, turnEnd] = messages;
    expect(start).toMatchObject({
      toolName: 'bash',
      title: 'Build',
      args: { command: expect.stringContaining("sh -c 'printf") },
    });
    // Colours dropped, a carriage-return redraw shows what the terminal showed last, in a code block.
    expect(text).toMatchObject({
      parentId: (start as { callId: string }).callId,
      text: '```\nred\n100%\nout\nerr\n```',
    });
    expect(end).toMatchObject({ error: 'exit status 3\nred\n100%\nout\nerr' });
    expect(turnEnd).toMatchObject({ status: 'failed' });
  }, 60_000);

  it('shows output live, while the command still runs', async () => {
    let sessionId: string | undefined;
    let seenLive = false;
    const running = run(
      [
        '--',
        'sh',
        '-c',
        'echo first; while [ ! -e "$0" ]; do sleep 0.1; done; echo second',
        join(bin.dir, 'go'),
      ],
      (line) => {
        sessionId ??= /session (\S+)$/.exec(line)?.[1];
      },
    );
    while (!seenLive) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (sessionId)
        seenLive = (await stored(sessionId)).some((m) => m.type === 'text' && m.text.includes('first'));
    }
    writeFileSync(join(bin.dir, 'go'), '');
    const result = await running;
    rmSync(join(bin.dir, 'go'));
    expect(result.code).toBe(0);
    const messages = await stored(result.sessionId);
    expect(messages.filter((m) => m.type === 'text').map((m) => (m as { text: string }).text)).toEqual([
      '```\nfirst\n```',
      '```\nsecond\n```',
    ]);
    expect(messages.at(-1)).toMatchObject({ type: 'turn-end', status: 'completed' });
  }, 60_000);

  it('forwards SIGTERM to the command and exits as it did: 128 + 15, step ended "killed by SIGTERM"', async () => {
    const cli = spawnCli(['run', '--', 'sh', '-c', 'echo ready; exec sleep 30'], runEnv());
    await cli.waitFor('ready');
    cli.child.kill('SIGTERM');
    expect(await cli.exited).toBe(143);
    const messages = await stored(sessionIdIn(cli.err().split('\n')));
    expect(messages.find((m) => m.type === 'tool-call-end')).toMatchObject({
      error: 'killed by SIGTERM\nready',
    });
    expect(messages.at(-1)).toMatchObject({ type: 'turn-end', status: 'cancelled' });
  }, 60_000);

  it('a command that handles the signal decides the status: SIGINT trapped, exit 5', async () => {
    const cli = spawnCli(
      ['run', '--', 'sh', '-c', 'trap "echo caught; exit 5" INT; echo ready; sleep 30 & wait'],
      runEnv(),
    );
    await cli.waitFor('ready');
    cli.child.kill('SIGINT');
    expect(await cli.exited).toBe(5);
    expect(cli.out()).toContain('caught');
  }, 60_000);

  it('nests three levels through the environment: release > test > unit, with the stream invariants', async () => {
    const script = [
      'echo release-start',
      `happy-session run --title test -- sh -c 'echo test-start; happy-session run --title unit -- echo unit-out; echo test-end'`,
      'echo release-end',
    ].join('; ');
    const result = await run(['--title', 'release', '--', 'sh', '-c', script]);
    expect(result.code).toBe(0);
    // Every line reached the terminal once.
    expect(result.out).toBe('release-start\ntest-start\nunit-out\ntest-end\nrelease-end\n');

    const messages = await stored(result.sessionId);
    const tree = fold(messages);
    const [turn] = tree.timeline;
    expect(turn).toMatchObject({ kind: 'turn', status: 'completed' });
    const [release] = callsOf((turn as { children: FoldedNode[] }).children);
    const [test] = callsOf(release!.children);
    const [unit] = callsOf(test!.children);
    expect([release, test, unit].map((c) => [c!.start.title, c!.status])).toEqual([
      ['release', 'done'],
      ['test', 'done'],
      ['unit', 'done'],
    ]);
    // Each step shows its own lines; nested output is not repeated in the steps around it.
    expect(textsOf(unit!)).toBe('```\nunit-out\n```');
    expect(textsOf(test!)).not.toContain('unit-out');
    expect(textsOf(test!)).toContain('test-start');
    expect(textsOf(release!)).toContain('release-end');
    expect(textsOf(release!)).not.toMatch(/test-start|unit-out/);

    // Time never goes backwards; every end comes after its start and before its parent's end.
    const times = messages.map((m) => m.time);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(new Set(times).size).toBe(times.length);
    const at = (type: string, callId: string): number =>
      messages.findIndex((m) => m.type === type && (m as { callId?: string }).callId === callId);
    for (const [outer, inner] of [
      [release!, test!],
      [test!, unit!],
    ] as const) {
      expect(at('tool-call-start', inner.callId)).toBeGreaterThan(at('tool-call-start', outer.callId));
      expect(at('tool-call-end', inner.callId)).toBeGreaterThan(at('tool-call-start', inner.callId));
      expect(at('tool-call-end', inner.callId)).toBeLessThan(at('tool-call-end', outer.callId));
    }
  }, 180_000);

  it('a nested run that dies without reporting its exit has its step ended with an error; the tree stays valid', async () => {
    // The inner command kills the nested run's own process (its parent) with SIGKILL.
    const script = `happy-session run --title inner -- sh -c 'echo inner-out; kill -9 $PPID; sleep 1'; echo after`;
    const result = await run(['--title', 'outer', '--', 'sh', '-c', script]);
    expect(result.code).toBe(0);
    const messages = await stored(result.sessionId);
    const [outer] = callsOf((fold(messages).timeline[0] as { children: FoldedNode[] }).children);
    const [inner] = callsOf(outer!.children);
    expect(inner!.end).toMatchObject({
      error: 'the nested happy-session run stopped reporting before its command ended',
    });
    expect(outer!.status).toBe('done');
    expect(messages.at(-1)).toMatchObject({ type: 'turn-end', status: 'completed' });
  }, 60_000);

  it('keeps a chatty command bounded: 100,000 lines become a few messages, the tail always kept', async () => {
    const result = await run(['--', 'seq', '1', '100000']);
    expect(result.code).toBe(0);
    expect(result.out.split('\n')).toHaveLength(100_001);
    const texts = (await stored(result.sessionId))
      .filter((m) => m.type === 'text')
      .map((m) => (m as { text: string }).text);
    const bytes = texts.reduce((n, t) => n + Buffer.byteLength(t), 0);
    expect(bytes).toBeLessThan(80 * 1024);
    expect(texts.length).toBeLessThan(30);
    expect(texts[0]!.startsWith('```\n1\n2\n3\n')).toBe(true);
    expect(texts.at(-2)).toMatch(/^\*… [\d,]+ lines \([\d.]+ KiB\) not shown …\*$/);
    expect(texts.at(-1)!.endsWith('\n99999\n100000\n```')).toBe(true);
  }, 120_000);

  it('--ask runs the command only when the user allows it', async () => {
    const marker = join(bin.dir, 'allowed');
    const account = await Account.open({ server: env.relay.url, credentials: env.credentials });
    let answered: Promise<unknown> | undefined;
    const result = await run(['--ask', '--', 'touch', marker], (line) => {
      const id = /session (\S+)$/.exec(line)?.[1];
      if (id) answered = answerWhenAsked(account, id, 'allow-once');
    });
    await answered;
    await account.close();
    expect(result.code).toBe(0);
    expect(existsSync(marker)).toBe(true);
    rmSync(marker);
    const messages = await stored(result.sessionId);
    expect(messages.map((m) => m.type)).toEqual([
      'turn-start',
      'tool-call-start',
      'permission-request',
      // The user's answer is the one response; the agent's sealed note confirms it (docs/permissions.md).
      'permission-response',
      'service',
      'tool-call-end',
      'turn-end',
    ]);
    expect(messages[2]).toMatchObject({ toolName: 'bash', args: { command: `touch ${marker}` } });
    expect(messages[3]).toMatchObject({ optionId: 'allow-once' });
    expect(messages[4]).toMatchObject({ text: `Permission answer applied: ${messages[3]!.id}` });
  }, 60_000);

  it('--ask denied: runs nothing and exits 77', async () => {
    const marker = join(bin.dir, 'denied');
    const account = await Account.open({ server: env.relay.url, credentials: env.credentials });
    let answered: Promise<unknown> | undefined;
    const result = await run(['--ask', '--', 'touch', marker], (line) => {
      const id = /session (\S+)$/.exec(line)?.[1];
      if (id) answered = answerWhenAsked(account, id, 'deny');
    });
    await answered;
    await account.close();
    expect(result.code).toBe(77);
    expect(existsSync(marker)).toBe(false);
    const messages = await stored(result.sessionId);
    expect(messages.find((m) => m.type === 'tool-call-end')).toMatchObject({ error: expect.any(String) });
    expect(messages.at(-1)).toMatchObject({ type: 'turn-end', status: 'cancelled' });
  }, 60_000);

  it('--session appends a turn to an existing session', async () => {
    const existing = await connect({ server: env.relay.url, credentials: env.credentials, title: 'Nightly' });
    existing.turn().end();
    await existing.close({ archive: false });
    const result = await run(['--session', existing.id, '--', 'echo', 'again']);
    expect(result.code).toBe(0);
    expect(result.sessionId).toBe(existing.id);
    const messages = await stored(existing.id);
    expect(messages.filter((m) => m.type === 'turn-start')).toHaveLength(2);
    expect(messages.find((m) => m.type === 'text')).toMatchObject({ text: '```\nagain\n```' });
  }, 60_000);

  it('--attach sends files into the step when the command ends, nested too, with the phases on stderr', async () => {
    // 12 MB of noise as a PNG: over the server's limit, so it is compressed to fit.
    const big = join(bin.dir, 'big.png');
    await sharp({
      create: {
        width: 2000,
        height: 2000,
        channels: 3,
        background: 'black',
        noise: { type: 'gaussian', mean: 128, sigma: 60 },
      },
    })
      .png({ compressionLevel: 0 })
      .toFile(big);
    const small = join(bin.dir, 'small.png');
    await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3366cc' } })
      .png()
      .toFile(small);
    const result = await run([
      '--title', 'outer', '--attach', big, '--',
      'happy-session', 'run', '--title', 'inner', '--attach', small, '--', 'true',
    ]); // prettier-ignore
    expect(result.code).toBe(0);
    // Not a terminal: one line per phase, the last with the sizes before and after.
    const lines = result.err.split('\n').filter((l) => l.startsWith('big.png'));
    expect(lines.map((l) => l.split(/\s+/)[1])).toEqual(['probe', 'compress', 'encrypt', 'upload', 'upload']);
    expect(lines.at(-1)).toMatch(
      /^big\.png {2}upload {4}█{20} {2}[\d.]+ MiB \/ [\d.]+ MiB {2}\(11\.\d MiB → [\d.]+ MiB\)$/,
    );
    expect(result.err).toMatch(/^small\.png {2}upload/m);

    const messages = await stored(result.sessionId);
    const tree = fold(messages);
    const [outer] = callsOf((tree.timeline[0] as { children: FoldedNode[] }).children);
    const [inner] = callsOf(outer!.children);
    const photoIn = (children: readonly FoldedNode[]) =>
      children.find((c) => c.kind === 'message' && c.message.type === 'photo');
    expect(photoIn(outer!.children)).toMatchObject({ message: { width: 2000, height: 2000 } });
    expect(photoIn(inner!.children)).toMatchObject({ message: { width: 40, height: 30 } });
    expect(inner!.status).toBe('done');
  }, 120_000);

  it('a command that does not exist: exit 127 and a step ended "command not found"', async () => {
    const result = await run(['--', 'no-such-command-here']);
    expect(result.code).toBe(127);
    expect(result.lines).toContain('happy-session run: command not found: no-such-command-here');
    const messages = await stored(result.sessionId);
    expect(messages.find((m) => m.type === 'tool-call-end')).toMatchObject({
      error: 'command not found: no-such-command-here',
    });
  }, 60_000);
});

/** Waits for the session's permission request, then answers it as the app does. */
async function answerWhenAsked(account: Account, sessionId: string, optionId: string): Promise<void> {
  const session = await account.session(sessionId);
  try {
    for (;;) {
      const request = (await session.reader.messages()).find(
        (m): m is PermissionRequestMessage => m.type === 'permission-request',
      );
      if (request) {
        const answer = await session.answer(request, optionId);
        if (answer.status === 'sent') await answer.recorded;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await session.close();
  }
}
